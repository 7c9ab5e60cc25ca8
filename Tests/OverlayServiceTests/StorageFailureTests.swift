import ServiceTestSupport
import Synchronization
import TestSupport
import Testing

@testable import MicroHTTP
@testable import OverlayService
@testable import OverlayStore

#if canImport(Glibc)
    import Glibc
#endif

/// A commit that fails (here: the file size limit, as a full disk would) is answered 503
/// `storage_failed`, never 202 or 200, and undone; the process goes on serving and stops cleanly.
@Suite("Storage failure")
struct StorageFailureTests {
    @Test func failedCommitsAreNotAnsweredAsStored() throws {
        let directory = try TemporaryDirectory()
        let configuration = try burstConfiguration()
        // SIGXFSZ ignored, so that a write past the limit fails with EFBIG instead of killing.
        // The schema's migrations take about 100 KB of the log before the first message; each
        // commit then adds a 4 KiB page, so 500 posts pass the limit whatever the block size.
        let script = #"trap "" XFSZ; ulimit -f 1000; exec "$0" "$@""#
        let child = try ChildProcess.overlayd(
            [
                "-c", script, try OverlaydExecutable.path(), "--port", "0", "--clock", "manual", "--data-dir",
                directory.path, "--config", configuration.path,
            ], executable: "/bin/sh")
        let port = try #require(child.listeningPort(), "stderr: \(child.errorText)")
        let long = String(repeating: "x", count: 250)
        var accepted: [Accepted] = []
        var refused: HTTPReply?
        for index in 0..<500 where refused == nil {
            let response = try RawClient.request("POST", "/messages", port: port, body: "\(index) \(long)")
            if response.status == 202, let id = response.json["id"]?.int {
                accepted.append(Accepted(id: id, text: response.json["text"]?.string ?? ""))
            } else {
                refused = response
            }
        }
        let failed = try #require(refused, "the file size limit was never reached")
        #expect(!accepted.isEmpty)
        expectError(failed, status: 503, code: "storage_failed")
        #expect(failed.header("Retry-After") == "1")

        // A keyed POST that could not be stored is undone, so its retry creates the message
        // again, and is refused again while the disk refuses: never a 200 for a message that
        // was never stored.
        let keyed = #"{"key": "upload-7", "text": "keyed"}"#
        let json = [("Content-Type", "application/json")]
        let first = try RawClient.request("POST", "/messages", port: port, headers: json, body: keyed)
        expectError(first, status: 503, code: "storage_failed")
        let retried = try RawClient.request("POST", "/messages", port: port, headers: json, body: keyed)
        expectError(retried, status: 503, code: "storage_failed")

        // Reads go on; the process stops cleanly and names the failure in its log.
        #expect(try RawClient.request("GET", "/healthz", port: port).status == 200)
        #expect(try RawClient.request("GET", "/messages", port: port).status == 200)
        kill(child.pid, SIGTERM)
        #expect(child.exitStatus() == 0)
        #expect(child.errorText.contains("storing failed"))

        // Every 202 is there after a restart without the limit.
        try expectNoneLostAfterRestart(accepted, directory: directory.path, configuration: configuration)
    }
}
