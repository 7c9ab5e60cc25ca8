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
        let process = try ChildProcess(
            try OverlaydExecutable.path(), ["--port", "0", "--ephemeral", "--access-log=false"] + arguments)
        defer { process.stop(signal: SIGTERM) }
        guard process.listeningPort() != nil else {
            throw TestSupportError("overlayd did not start: \(process.errorText)")
        }
        return TemporaryDirectory.read("/proc/\(process.pid)/maps")
    }

    @Test func notLoadedWithoutPublishing() throws {
        let maps = try mappedLibraries([])
        #expect(maps.contains("libmicrohttpd"))
        #expect(!maps.contains("libcurl"))
    }

    @Test func loadedWhenPublishing() throws {
        let (socket, port) = try Loopback.refusingPort()
        defer { close(socket) }
        let maps = try mappedLibraries(["--publish", "http://127.0.0.1:\(port)/pub/{channel}"])
        #expect(maps.contains("libcurl.so.4"))
    }
}
