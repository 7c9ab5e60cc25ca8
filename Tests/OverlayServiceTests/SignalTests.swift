import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

#if canImport(Glibc)
    import Glibc
#endif

/// The signals a terminal, a service manager or a shell sends the `overlayd` process (MODEL §7):
/// SIGHUP (a closed terminal, `kill -HUP`) stops it as SIGTERM does, and SIGPIPE does nothing.
/// Like `ProcessTests`, these need the executable built (`swift build && swift test`).
@Suite("overlayd signals")
struct SignalTests {
    /// The long-poll waiters `GET /metrics` counts on the default channel, nil if unread.
    static func longPollWaiters(port: Int) -> Int? {
        (try? MetricSamples.scrape(port: port))?.count("overlayd_long_poll_waiters", channel: "default")
    }

    /// SIGHUP is a graceful stop: a long-poll parked before it is answered 503 `shutting_down`
    /// (not cut off), the stop is logged as SIGTERM's is, and the process exits 0.
    @Test func hangUpStopsGracefully() throws {
        let child = try ChildProcess.overlayd(["--port", "0", "--clock", "manual", "--ephemeral", "--access-log=false"])
        let port = try #require(child.listeningPort(), "stderr: \(child.errorText)")
        let version = try #require(RawClient.request("GET", "/overlay", port: port).json["version"]?.int)
        let poll = try StreamClient(port: port, path: "/overlay?wait=60&since=\(version)")
        // The long-poll has parked once the metric counts it.
        #expect(eventually { Self.longPollWaiters(port: port) == 1 })

        #expect(child.kill(SIGHUP))
        let released = try poll.response()
        #expect(released.status == 503)
        #expect(released.errorCode == "shutting_down")
        #expect(child.exitStatus() == 0)
        #expect(child.errorText.contains("overlayd stopping signal=\(SIGHUP)\n"), "stderr: \(child.errorText)")
        #expect(child.errorText.contains("overlayd stopped\n"))
    }

    /// SIGPIPE (a client gone while its answer is written) neither stops nor kills the process.
    /// SIGTERM sent after it is the one that stops it: a SIGPIPE acted upon would have ended
    /// the process by then (a fatal signal ends it as it is sent), or been taken first.
    @Test func brokenPipeIsIgnored() throws {
        let child = try ChildProcess.overlayd(["--port", "0", "--clock", "manual", "--ephemeral", "--access-log=false"])
        let port = try #require(child.listeningPort(), "stderr: \(child.errorText)")
        #expect(child.kill(SIGPIPE))
        #expect(try RawClient.request("GET", "/healthz", port: port).status == 200)
        #expect(child.stop(signal: SIGTERM) == 0)
        #expect(child.errorText.contains("overlayd stopping signal=\(SIGTERM)\n"), "stderr: \(child.errorText)")
    }

    /// Started under `nohup` (SIGHUP ignored), a hang-up leaves it serving; SIGTERM still stops
    /// it. Were SIGHUP waited for, it would be taken before the SIGTERM sent after it (sigwait
    /// takes the lowest pending signal), and the stop would name it.
    @Test func hangUpIgnoredUnderNohup() throws {
        let overlayd = try OverlaydExecutable.path()
        let child = try ChildProcess(
            "/bin/sh",
            [
                "-c", #"trap '' HUP; exec "$0" "$@""#, overlayd, "--port", "0", "--clock", "manual", "--ephemeral",
                "--access-log=false",
            ])
        let port = try #require(child.listeningPort(), "stderr: \(child.errorText)")
        #expect(child.kill(SIGHUP))
        #expect(try RawClient.request("GET", "/healthz", port: port).status == 200)
        #expect(child.stop(signal: SIGTERM) == 0)
        #expect(child.errorText.contains("overlayd stopping signal=\(SIGTERM)\n"), "stderr: \(child.errorText)")
    }
}
