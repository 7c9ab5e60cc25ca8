import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The overlayd executable loads libcurl only when it publishes: linked, libcurl and the
/// libraries it needs would cost every start (docs/SCALING.md).
@Suite("libcurl loading")
struct LibcurlLoadingTests {
    /// Starts overlayd with `arguments` and returns the libraries it has mapped once listening.
    private func mappedLibraries(_ arguments: [String]) throws -> String {
        let directory = try TemporaryDirectory()
        let log = directory.path + "/overlayd.log"
        let process = try ChildProcess(
            [try OverlaydExecutable.path(), "--port", "0", "--ephemeral", "--access-log=false"] + arguments,
            log: log)
        defer { process.stop(signal: SIGTERM) }
        guard eventually(within: 10, { readText(log).contains(" listening ") }) else {
            throw SupportError("overlayd did not start: \(readText(log))")
        }
        return readText("/proc/\(process.pid)/maps")
    }

    @Test func notLoadedWithoutPublishing() throws {
        let maps = try mappedLibraries([])
        #expect(maps.contains("libmicrohttpd"))
        #expect(!maps.contains("libcurl"))
    }

    @Test func loadedWhenPublishing() throws {
        let port = try Sockets.freePort()
        let maps = try mappedLibraries(["--publish", "http://127.0.0.1:\(port)/pub/{channel}"])
        #expect(maps.contains("libcurl.so.4"))
    }
}
