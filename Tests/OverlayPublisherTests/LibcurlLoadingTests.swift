import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The overlayd executable loads libcurl only when it publishes: linked, libcurl and the
/// libraries it needs would cost every start (docs/SCALING.md).
@Suite("libcurl loading")
struct LibcurlLoadingTests {
    /// The built executable beside the test bundle (or OVERLAYD_BINARY).
    static func binary() throws -> String {
        var candidates: [String] = []
        if let path = getenv("OVERLAYD_BINARY") { candidates.append(String(cString: path)) }
        var buffer = [CChar](repeating: 0, count: 4096)
        let length = readlink("/proc/self/exe", &buffer, buffer.count - 1)
        if length > 0 {
            var parts = String(decoding: buffer[..<length].map { UInt8(bitPattern: $0) }, as: UTF8.self)
                .split(separator: "/", omittingEmptySubsequences: false)
            parts.removeLast()
            candidates.append((parts + ["overlayd"]).joined(separator: "/"))
        }
        guard let found = candidates.first(where: { access($0, X_OK) == 0 }) else {
            throw SupportError("no overlayd executable among \(candidates) (swift build first)")
        }
        return found
    }

    /// Starts overlayd with `arguments` and returns the libraries it has mapped once listening.
    private func mappedLibraries(_ arguments: [String]) throws -> String {
        let directory = try TemporaryDirectory()
        let log = directory.path + "/overlayd.log"
        let process = try ChildProcess(
            [try LibcurlLoadingTests.binary(), "--port", "0", "--ephemeral", "--access-log=false"] + arguments,
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
