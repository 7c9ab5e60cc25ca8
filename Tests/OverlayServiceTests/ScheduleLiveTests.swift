import Platform
import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

#if canImport(Glibc)
    import Glibc
#endif

/// Scheduled messages with the real clock: one shows on its own at its time (the server's own
/// deadline, no reader polling), and after `kill -9` the one that came due while the process was
/// down joins at start-up while the one not yet due keeps its time.
@Suite("Scheduled messages with the real clock")
struct ScheduleLiveTests {
    /// An RFC 3339 UTC time, `seconds` from now on the wall clock.
    static func rfc3339(secondsFromNow seconds: Int) -> String {
        var time = time_t(WallClock.nanoseconds() / 1_000_000_000 + Int64(seconds))
        var parts = tm()
        gmtime_r(&time, &parts)
        func two(_ value: Int32) -> String { value < 10 ? "0\(value)" : "\(value)" }
        return "\(parts.tm_year + 1900)-\(two(parts.tm_mon + 1))-\(two(parts.tm_mday))T"
            + "\(two(parts.tm_hour)):\(two(parts.tm_min)):\(two(parts.tm_sec))Z"
    }

    /// Posted with a delay of 0.2 s, it shows without any request: a long-poll on the version
    /// after the POST wakes when it joins, and finds it shown.
    @Test func showsOnItsOwn() throws {
        try withLiveServer(clock: .real) { live in
            let posted = try live.post("/messages", json: #"{"text": "soon", "delay": 0.2}"#)
            #expect(posted.status == 202 && posted.json["state"]?.string == "scheduled")
            let version = try #require(live.overlay()["version"]?.int)
            let woken = try live.get("/overlay?wait=30&since=\(version)")
            #expect(woken.status == 200)
            #expect(woken.json["message"]?["text"]?.string == "soon")
            #expect(woken.json["scheduled"]?.int == 0)
            #expect(try live.get("/messages/1").json["state"]?.string == "showing")
        }
    }

    /// With the real clock an `at` is a calendar time or a Unix time: an hour ahead is about 3600 s
    /// ahead on the server's clock.
    @Test func atIsAWallClockTime() throws {
        try withLiveServer(clock: .real) { live in
            for at in [
                "\"\(Self.rfc3339(secondsFromNow: 3600))\"", "\(WallClock.nanoseconds() / 1_000_000_000 + 3600)",
            ] {
                let posted = try live.post("/messages", json: #"{"text": "later", "at": \#(at)}"#)
                #expect(posted.status == 202, "\(posted.text)")
                let now = try #require(live.overlay()["now"]?.number)
                let scheduledFor = try #require(posted.json["scheduledFor"]?.number)
                // Whole seconds of the wall clock: at most a second early, never late by more than the run.
                #expect(scheduledFor > now + 3598 && scheduledFor <= now + 3600, "\(scheduledFor) at \(now)")
            }
            expectError(
                try live.post(
                    "/messages", json: #"{"text": "x", "at": "\#(Self.rfc3339(secondsFromNow: 8 * 86400))"}"#),
                status: 422, code: "invalid_field", field: "at")
            // Years whose nanoseconds do not fit in 64 bits: far ahead is refused, far past is now.
            expectError(
                try live.post("/messages", json: #"{"text": "x", "at": "9999-12-31T23:59:59Z"}"#),
                status: 422, code: "invalid_field", field: "at")
            let past = try live.post("/messages", json: #"{"text": "long ago", "at": "0001-01-01T00:00:00Z"}"#)
            #expect(past.status == 202 && past.json["state"]?.string != "scheduled", "\(past.text)")
        }
    }

    /// kill -9 with a message due in 1.5 s and one due in an hour: restarted after the first's time
    /// has passed on the wall clock, the first has joined the queue (behind the restored shown
    /// one), the second is still scheduled about an hour ahead, a waiting message whose expiry
    /// passed while down has expired, and priorities are as they were.
    @Test func killDashNineKeepsScheduledMessages() throws {
        let directory = try TemporaryDirectory()
        let configuration = try ConfigurationFile(#"{"accessLog": false, "limits": {"writesPerSecond": 0}}"#)
        func start() throws -> (ChildProcess, Int) {
            let child = try ChildProcess.overlayd([
                "--port", "0", "--clock", "real", "--data-dir", directory.path, "--config", configuration.path,
            ])
            guard let port = child.listeningPort() else { throw TestSupportError("no start: \(child.errorText)") }
            return (child, port)
        }
        let (first, port) = try start()
        func post(_ body: String, port: Int) throws -> HTTPReply {
            try RawClient.request(
                "POST", "/messages", port: port, headers: [("Content-Type", "application/json")], body: body)
        }
        #expect(try post(#"{"text": "upload", "kind": "sending"}"#, port: port).status == 202)
        let soon = try post(#"{"text": "soon", "delay": 1.5, "priority": "max"}"#, port: port)
        #expect(soon.status == 202)
        let dueWall = WallClock.nanoseconds() + 1_500_000_000
        #expect(try post(#"{"text": "later", "delay": "1h"}"#, port: port).status == 202)
        #expect(try post(#"{"text": "lapsing", "expires": 1.5}"#, port: port).status == 202)
        #expect(try post(#"{"text": "low", "priority": 1}"#, port: port).status == 202)
        // Still ahead when the process dies (else the test would prove nothing).
        #expect(try RawClient.request("GET", "/messages/2", port: port).json["state"]?.string == "scheduled")
        #expect(try RawClient.request("GET", "/messages/4", port: port).json["state"]?.string == "queued")
        kill(first.pid, SIGKILL)
        #expect(first.exitStatus() == -SIGKILL)
        // The condition itself: the wall clock is past the first message's time.
        #expect(eventually { WallClock.nanoseconds() > dueWall + 100_000_000 })

        let (second, again) = try start()
        defer { kill(second.pid, SIGKILL) }
        let live = try #require(RawClient.request("GET", "/messages", port: again).json["messages"]?.array)
        #expect(live.map { $0["text"]?.string } == ["upload", "soon", "low"])
        #expect(live.map { $0["priority"]?.int } == [3, 5, 1])
        #expect(try RawClient.request("GET", "/messages/4", port: again).json["state"]?.string == "expired")
        let scheduled = try #require(
            RawClient.request("GET", "/messages?state=scheduled", port: again).json["messages"]?.array)
        #expect(scheduled.map { $0["text"]?.string } == ["later"])
        let now = try #require(RawClient.request("GET", "/overlay", port: again).json["now"]?.number)
        let scheduledFor = try #require(scheduled.first?["scheduledFor"]?.number)
        #expect(scheduledFor > now + 3500 && scheduledFor < now + 3600, "\(scheduledFor) at \(now)")
        #expect(try RawClient.request("GET", "/overlay", port: again).json["scheduled"]?.int == 1)
    }
}
