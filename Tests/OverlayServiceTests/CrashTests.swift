import Platform
import ServiceTestSupport
import TestSupport
import Testing

@testable import MicroHTTP
@testable import OverlayService
@testable import OverlayStore

#if canImport(Glibc)
    import Glibc
#endif

/// `kill -9` and SIGTERM in the middle of a burst of POSTs, with the real executable: every
/// message answered 202 is there after a restart on the same data directory.
@Suite("Crash and restart")
struct CrashTests {
    /// Eight threads POST as fast as they can; the process is killed with SIGKILL mid-burst and
    /// started again on the same directory, a few rounds over. Every 202 survives; ids and versions
    /// go on beyond everything answered before.
    @Test func killDashNineLosesNoAcceptedMessage() throws {
        let directory = try TemporaryDirectory()
        let configuration = try burstConfiguration()
        var everything: [Accepted] = []
        let highestVersion = Lock(0)
        for round in 0..<3 {
            let (child, port) = try ChildProcess.daemon(on: directory.path, configuration: configuration)
            if round > 0 {
                let version = try #require(RawClient.request("GET", "/overlay", port: port).json["version"]?.int)
                #expect(version > highestVersion.withLock { $0 }, "round \(round)")
                let lost = missing(everything, port: port)
                #expect(lost.isEmpty, "round \(round): \(lost.count) lost, first \(lost.prefix(3))")
            }
            let log = AcceptedLog()
            let pid = child.pid
            burst(port: port, threads: 8, round: round, log: log) {
                // A reader follows the version (it sees changes before they are on disk); the kill
                // comes at a different point of the burst each round, while every thread is busy
                // posting: after 100, 150, 200 answered writes.
                let target = 100 + 50 * round
                _ = eventually {
                    if let version = try? RawClient.request("GET", "/overlay", port: port).json["version"]?.int {
                        highestVersion.withLock { $0 = max($0, version) }
                    }
                    return log.count >= target
                }
                kill(pid, SIGKILL)
            }
            #expect(child.exitStatus() == -SIGKILL)
            let accepted = log.all
            #expect(accepted.count >= 100 + 50 * round, "round \(round): only \(accepted.count) accepted")
            #expect(Set(accepted.map(\.id)).count == accepted.count)
            #expect(Set(everything.map(\.id)).isDisjoint(with: accepted.map(\.id)))
            everything += accepted
        }
        let (child, port) = try ChildProcess.daemon(on: directory.path, configuration: configuration)
        let lost = missing(everything, port: port)
        #expect(lost.isEmpty, "\(lost.count) of \(everything.count) lost, first \(lost.prefix(3))")
        let fresh = try RawClient.request("POST", "/messages", port: port, body: "after three crashes")
        #expect(try #require(fresh.json["id"]?.int) > everything.map(\.id).max() ?? 0)
        let version = try #require(RawClient.request("GET", "/overlay", port: port).json["version"]?.int)
        #expect(version > highestVersion.withLock { $0 })
        kill(child.pid, SIGKILL)
    }

    /// SIGTERM during a burst: the writes in flight meanwhile end, the process exits 0, and every
    /// 202 answered before is there afterwards.
    @Test func sigtermDuringBurstKeepsEveryAcceptedMessage() throws {
        let directory = try TemporaryDirectory()
        let configuration = try burstConfiguration()
        let (child, port) = try ChildProcess.daemon(on: directory.path, configuration: configuration)
        let log = AcceptedLog()
        let status = Lock<Int32?>(nil)
        burst(port: port, threads: 8, round: 0, log: log) {
            _ = eventually { log.count >= 100 }
            child.kill(SIGTERM)
            // The burst goes on until the process has ended: its threads see the server stop.
            status.withLock { $0 = child.exitStatus() }
        }
        #expect(status.withLock { $0 } == 0, "stderr: \(child.errorText.suffix(500))")
        #expect(child.errorText.contains("overlayd stopped"))
        let accepted = log.all
        #expect(accepted.count >= 100)

        try expectNoneLostAfterRestart(accepted, directory: directory.path, configuration: configuration)
    }
}
