import Foundation
import OverlayClient
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The overlayd executable carries `post` and `watch`, but its server starts as it did without
/// them: no Foundation, no FoundationNetworking, no libcurl mapped (Foundation's networking alone
/// loads libcurl and some thirty libraries, 5 MB of RSS at every start). The commands load
/// libcurl when they run.
@Suite("overlayd executable footprint")
struct ExecutableFootprintTests {
    /// What neither the executable links nor its server maps.
    static let absent = [
        "libFoundation.so", "libFoundationNetworking", "libFoundationInternationalization", "lib_FoundationICU",
        "libFoundationXML", "libcurl",
    ]

    static func maps(_ pid: pid_t) throws -> String {
        // Read whole: procfs reports no size.
        let data = try #require(FileHandle(forReadingAtPath: "/proc/\(pid)/maps")).readDataToEndOfFile()
        return String(decoding: data, as: UTF8.self)
    }

    /// `ldd` of the binary names none of them.
    @Test(.enabled(if: access("/usr/bin/ldd", X_OK) == 0, "no ldd"))
    func linksNone() async throws {
        let run = try await CommandRun.run([try OverlaydExecutable.path()], shell: "/usr/bin/ldd")
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output.contains("libmicrohttpd"))
        for library in Self.absent { #expect(!run.output.contains(library), "\(run.output)") }
    }

    /// A serving overlayd maps none of them; `overlayd post` to it still works.
    @Test func serverMapsNoneAndPostWorks() async throws {
        let server = try await ServerProcess.start(["--ephemeral"])
        let maps = try Self.maps(server.pid)
        #expect(maps.contains("libmicrohttpd"))
        for library in Self.absent { #expect(!maps.contains(library)) }

        let run = try await CommandRun.run(["post", "from the lean binary", "--url", server.url.absoluteString])
        #expect(run.status == 0, "\(run.errors)")
        let id = try #require(Int(run.output.trimmingCharacters(in: .whitespacesAndNewlines)))
        #expect(try await OverlayClient(url: server.url).message(id).text == "from the lean binary")
    }

    /// Without a usable libcurl (here a file that is not a library where the loader looks
    /// first), `post` and `watch` say why and exit 1 at once: `watch` does not wait for it as for
    /// a server away. The server itself does not need it.
    @Test func withoutLibcurl() async throws {
        let directory = try TemporaryDirectory()
        _ = try directory.write("libcurl.so.4", "not a library")
        let environment = ["LD_LIBRARY_PATH": directory.path]
        let server = try await ServerProcess.start(["--ephemeral"], environment: environment)
        for command in ["post", "watch"] {
            let run = try await CommandRun.run(
                [command] + (command == "post" ? ["never sent"] : []) + ["--url", server.url.absoluteString],
                environment: environment)
            #expect(run.status == 1, "\(command): \(run.errors)")
            #expect(
                run.errors.contains("overlayd \(command): libcurl (libcurl.so.4) cannot be loaded"), "\(run.errors)")
        }
        #expect(try await OverlayClient(url: server.url).messages().isEmpty)
    }

    /// `overlayd watch` runs on libcurl, loaded once it runs, and not on Foundation's networking.
    @Test func watchLoadsLibcurl() async throws {
        // The manual clock: its versions start at 0 (the real clock's start from the wall clock).
        let server = try await ServerProcess.start(["--ephemeral", "--clock", "manual"])
        let watch = try ChildProcess(try OverlaydExecutable.path(), ["watch", "--url", server.url.absoluteString])
        // Piped, it prints a line per overlay: the first shows that its stream is up.
        #expect(await eventually { watch.outputText.hasPrefix("v0 hidden") }, "\(watch.outputText)")
        let maps = try Self.maps(watch.pid)
        #expect(maps.contains("libcurl.so.4"))
        #expect(!maps.contains("libFoundationNetworking"))
        #expect(!maps.contains("libFoundation.so"))
    }
}
