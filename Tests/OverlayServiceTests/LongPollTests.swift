import Platform
import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

#if canImport(Glibc)
    import Glibc
#endif

/// `GET /overlay` with `ETag`, `If-None-Match` and `?wait=` (MODEL §5), against a real server.
/// Waits end on the wall clock, so each is checked against another reader's (which is answered
/// first), never against a measured duration: the suite runs in parallel on two loaded cores.
@Suite("Long-poll")
struct LongPollTests {
    /// The ETag names the version; If-None-Match or `?since=` with the current version answers 304
    /// without a body, and an older one answers 200 with the overlay.
    @Test func notModified() throws {
        try withLiveServer { live in
            let first = try live.get("/overlay")
            #expect(first.status == 200)
            #expect(first.header("ETag") == #"W/"0""#)
            #expect(first.header("Cache-Control") == "no-cache")
            #expect(first.json["version"]?.int == 0)

            #expect(try live.post("/messages", json: #"{"text": "hello"}"#).status == 202)
            let unchanged = try live.request("GET", "/overlay", headers: [("If-None-Match", #"W/"1""#)])
            #expect(unchanged.status == 304)
            #expect(unchanged.body.isEmpty)
            #expect(unchanged.header("ETag") == #"W/"1""#)
            #expect(unchanged.header("Cache-Control") == "no-cache")
            // A strong tag and a list naming the version match too (weak comparison).
            #expect(try live.request("GET", "/overlay", headers: [("If-None-Match", #""1""#)]).status == 304)
            #expect(try live.request("GET", "/overlay", headers: [("If-None-Match", #"W/"7", W/"1""#)]).status == 304)
            #expect(try live.get("/overlay?since=1").status == 304)

            let changed = try live.request("GET", "/overlay", headers: [("If-None-Match", #"W/"0""#)])
            #expect(changed.status == 200)
            #expect(changed.header("ETag") == #"W/"1""#)
            #expect(changed.json["version"]?.int == 1)
            #expect(changed.json["message"]?["text"]?.string == "hello")
            #expect(try live.get("/overlay?since=0").json["version"]?.int == 1)
        }
    }

    /// `wait` is a number of seconds in (0, 60]: outside 422, not a number 400; `since` must be a
    /// version.
    @Test(arguments: [
        ("wait=0&since=0", 422), ("wait=-1&since=0", 422), ("wait=60.5&since=0", 422), ("wait=61&since=0", 422),
        ("wait=abc&since=0", 400), ("wait=nan&since=0", 400), ("wait=inf&since=0", 400), ("wait=&since=0", 400),
        ("wait=5&since=abc", 400), ("wait=5&since=-1", 400), ("wait=0", 422),
    ])
    func invalidParameters(query: String, status: Int) throws {
        try withLiveServer { live in
            let response = try live.get("/overlay?\(query)")
            #expect(response.status == status, "\(query): \(response.text)")
            #expect(response.errorCode == (status == 422 ? "invalid_field" : "bad_request"), "\(query)")
            #expect(try live.metric("overlayd_long_poll_waiters") == 0)
        }
    }

    /// A long-poll parked on the current version is answered by a POST: 200 with the new version,
    /// round after round. (How soon is measured by `bench/latency`.)
    @Test func aPostAnswersTheParkedWaiter() throws {
        // Manual clock: no deadline can change the version between the rounds.
        try withLiveServer { live in
            for round in 0..<5 {
                let version = try #require(try live.version())
                let waiter = try StreamClient(
                    port: live.port, path: "/overlay?wait=60", headers: [("If-None-Match", "W/\"\(version)\"")])
                #expect(try live.waitForMetric("overlayd_long_poll_waiters", toBe: 1))
                #expect(!waiter.hasData(), "answered before any change")
                #expect(try live.request("POST", "/messages?kind=sending", body: "round \(round)").status == 202)
                let response = try waiter.response()
                #expect(response.status == 200)
                #expect(response.json["version"]?.int == version + 1)
                #expect(response.header("ETag") == "W/\"\(version + 1)\"")
                #expect(response.json["message"]?["text"]?.string != nil)
            }
            #expect(try live.metric("overlayd_long_poll_waiters") == 0)
        }
    }

    /// With nothing changing, a long-poll answers 304 with the ETag once `wait` seconds of
    /// wall-clock time pass, also when the clock is manual and does not move. A waiter with a
    /// longer wait, parked before it, is still waiting then: the 304 is the wait's end, not an
    /// answer to everyone.
    @Test(arguments: [ClockMode.manual, .real])
    func timeout(clock: ClockMode) throws {
        try withLiveServer(clock: clock) { live in
            // A hidden overlay with an empty queue: nothing changes on its own, with either clock.
            let version = try #require(try live.version())
            let witness = try StreamClient(port: live.port, path: "/overlay?wait=60&since=\(version)")
            #expect(try live.waitForMetric("overlayd_long_poll_waiters", toBe: 1))
            let waiter = try StreamClient(
                port: live.port, path: "/overlay?wait=0.3", headers: [("If-None-Match", "W/\"\(version)\"")])
            let response = try waiter.response()
            #expect(response.status == 304)
            #expect(response.body.isEmpty)
            #expect(response.header("ETag") == "W/\"\(version)\"")
            #expect(!witness.hasData(), "the longer wait was answered too")
            if clock == .manual { #expect(try live.get("/clock").json["now"]?.number == 0) }

            // The `since` form behaves the same.
            let second = try StreamClient(port: live.port, path: "/overlay?wait=0.2&since=\(version)").response()
            #expect(second.status == 304)
            #expect(second.header("ETag") == "W/\"\(version)\"")
            #expect(!witness.hasData(), "the longer wait was answered too")
            #expect(try live.metric("overlayd_long_poll_waiters") == 1)
        }
    }

    /// Waiters with different waits each get their own 304 at their own time, the shorter wait
    /// first; one still waiting is answered by the next change.
    @Test func staggeredTimeouts() throws {
        try withLiveServer { live in
            let long = try StreamClient(port: live.port, path: "/overlay?wait=60&since=0")
            let short = try StreamClient(port: live.port, path: "/overlay?wait=0.3&since=0")
            let middle = try StreamClient(port: live.port, path: "/overlay?wait=10&since=0")
            // Whenever this looks, the middle wait has not ended before the short one (a look held
            // off until both have ended sees nothing wrong, and nothing to fail on either).
            #expect(eventually { short.hasData() || middle.hasData() })
            #expect(short.hasData() || !middle.hasData(), "the 10 s wait ended before the 0.3 s one")
            let first = try short.response()
            #expect(first.status == 304)
            let second = try middle.response()
            #expect(second.status == 304)
            #expect(!long.hasData(), "the 60 s wait ended with the shorter ones")
            #expect(try live.metric("overlayd_long_poll_waiters") == 1)
            #expect(try live.post("/messages", json: #"{"text": "now"}"#).status == 202)
            let third = try long.response()
            #expect(third.status == 200)
            #expect(third.json["version"]?.int == 1)
        }
    }

    /// Waiters parked at the same moment from many connections, half for 60 s and half for under
    /// a second: each short one gets its 304 while every long one still waits. The next waiter
    /// deadline is worked out under the channel's lock; it once reached the scheduler after the
    /// lock was released, so two waits parked at once on two pool threads could hand it over in
    /// the wrong order and leave the long deadline in place of the 0.3 s one (CI saw a 0.3 s
    /// wait go unanswered).
    @Test func concurrentWaitersEachExpireOnTime() throws {
        try withLiveServer(configure: { $0.connectionsPerClient = 0 }) { live in
            let port = live.port
            let count = 96
            var planned: [Double] = []
            for index in 0..<count {
                let tenths = Double(index / 2 % 6)
                planned.append(index % 2 == 0 ? 60 : 0.3 + tenths / 10)
            }
            let waits = planned
            let clients = Lock<[Int: StreamClient]>([:])
            onThreads(8) { thread in
                for index in stride(from: thread, to: count, by: 8) {
                    let client = try? StreamClient(port: port, path: "/overlay?wait=\(waits[index])&since=0")
                    clients.withLock { $0[index] = client }
                }
            }
            let short = (0..<count).filter { waits[$0] < 60 }.sorted { waits[$0] < waits[$1] }
            for index in short {
                let client = clients.withLock { $0[index] }
                guard let client else {
                    Issue.record("waiter \(index) did not connect")
                    continue
                }
                // The client gives up (throws) long before a 60 s deadline could answer it.
                let response = try client.response()
                #expect(response.status == 304, "waiter \(index)")
            }
            let long = (0..<count).filter { waits[$0] == 60 }.compactMap { index in clients.withLock { $0[index] } }
            #expect(long.count == count / 2)
            #expect(long.allSatisfy { !$0.hasData() }, "a 60 s wait was answered with the short ones")
            #expect(try live.metric("overlayd_long_poll_waiters") == count / 2)
        }
    }

    /// A deadline is a change like any other: a waiter parked while a message slides in is
    /// answered when `POST /clock` reaches the end of the slide.
    @Test func deadlineWakesWaiter() throws {
        try withLiveServer { live in
            #expect(try live.post("/messages", json: #"{"text": "sliding", "kind": "sending"}"#).status == 202)
            let waiter = try StreamClient(
                port: live.port, path: "/overlay?wait=60", headers: [("If-None-Match", #"W/"1""#)])
            #expect(try live.waitForMetric("overlayd_long_poll_waiters", toBe: 1))
            // No deadline reached: no version, no answer (one given now would carry `now` 0.1).
            #expect(try live.advance(0.1).status == 200)
            #expect(!waiter.hasData(), "answered without a version change")
            #expect(try live.advance(0.15).status == 200)
            let response = try waiter.response()
            #expect(response.status == 200)
            #expect(response.json["version"]?.int == 2)
            #expect(response.json["phase"]?.string == "visible")
            #expect(response.json["now"]?.number == 0.25)
        }
    }

    /// A `since` (or If-None-Match) that is not the current version is answered at once with the
    /// overlay: older, and also a version the server never had. (The client gives up long before
    /// a 60 s wait could end.)
    @Test func staleVersionAnswersAtOnce() throws {
        try withLiveServer { live in
            #expect(try live.post("/messages", json: #"{"text": "one"}"#).status == 202)
            #expect(try live.post("/messages", json: #"{"text": "two"}"#).status == 202)
            #expect(try live.advance(0.25).status == 200)
            let version = try #require(try live.version())
            for (path, headers) in [
                ("/overlay?wait=60&since=1", []), ("/overlay?wait=60", [("If-None-Match", #"W/"0""#)]),
                ("/overlay?wait=60&since=\(version + 50)", []),
            ] as [(String, [(String, String)])] {
                let response = try StreamClient(port: live.port, path: path, headers: headers).response()
                #expect(response.status == 200, "\(path)")
                #expect(response.json["version"]?.int == version, "\(path)")
                #expect(response.header("ETag") == "W/\"\(version)\"", "\(path)")
            }
            #expect(try live.metric("overlayd_long_poll_waiters") == 0)
        }
    }

    /// A long-poll may wait longer than the idle-connection timeout: the held request outlives an
    /// idle connection opened with it and is answered 304 at its own time, or 200 by a change that
    /// comes after the idle timeout, never dropped with the idle one.
    @Test func waitLongerThanConnectionTimeout() throws {
        try withLiveServer(configure: { $0.connectionTimeout = 1 }) { live in
            let idle = try RawClient(port: live.port)
            let waiter = try StreamClient(port: live.port, path: "/overlay?wait=10&since=0")
            #expect(idle.isClosed(within: patience), "the idle connection stayed open")
            // Its 304 comes at 10 s on the server's clock, after the 1 s idle timeout: not a close.
            let response = try waiter.response()
            #expect(response.status == 304)

            let otherIdle = try RawClient(port: live.port)
            let changed = try StreamClient(port: live.port, path: "/overlay?wait=60&since=0")
            #expect(otherIdle.isClosed(within: patience), "the idle connection stayed open")
            #expect(try live.post("/messages", json: #"{"text": "late"}"#).status == 202)
            let answer = try changed.response()
            #expect(answer.status == 200)
            #expect(answer.json["version"]?.int == 1)
        }
    }

    /// 200 long-polls parked at once (each on its own connection) leave the server free: 200 health
    /// checks and 200 POSTs to another channel are answered meanwhile, none of the waiters is
    /// answered by them, and then one POST to their channel answers all 200 with the new version.
    /// (How fast, `bench/latency` measures.)
    @Test func twoHundredWaiters() throws {
        try withLiveServer(
            started: LiveServer {
                $0.engine.maxQueue = 10_000
                $0.connectionsPerClient = 0
            }
        ) { live in
            let port = live.port
            let count = 200
            let waiters = try (0..<count).map { _ in
                try StreamClient(port: port, path: "/overlay?wait=60", headers: [("If-None-Match", #"W/"0""#)])
            }
            #expect(try live.waitForMetric("overlayd_long_poll_waiters", toBe: count))

            let problems = Lock<[String]>([])
            onThreads(4) { thread in
                for index in 0..<50 {
                    do {
                        let health = try RawClient.request("GET", "/healthz", port: port)
                        let posted = try RawClient.request(
                            "POST", "/channels/other/messages", port: port, body: "t\(thread) #\(index)")
                        if health.status != 200 || posted.status != 202 {
                            problems.withLock { $0.append("healthz \(health.status), POST \(posted.status)") }
                        }
                    } catch {
                        problems.withLock { $0.append("\(error)") }
                    }
                }
            }
            #expect(problems.withLock { $0 } == [])
            #expect(try live.version("/channels/other/overlay") == 200)
            #expect(try live.version() == 0)
            #expect(waiters.allSatisfy { !$0.hasData() }, "a waiter was answered by another channel's change")
            #expect(try live.metric("overlayd_long_poll_waiters") == count)

            #expect(try live.post("/messages", json: #"{"text": "wake up"}"#).status == 202)
            var versions: [Int?] = []
            var statuses: [Int] = []
            for waiter in waiters {
                let response = try waiter.response()
                statuses.append(response.status)
                versions.append(response.json["version"]?.int)
            }
            #expect(statuses == Array(repeating: 200, count: count))
            #expect(versions == Array(repeating: 1, count: count))
            #expect(try live.metric("overlayd_long_poll_waiters") == 0)
        }
    }

    /// A waiter whose client hung up does not disturb anyone: the server keeps answering, and the
    /// waiter is gone once its time is up.
    @Test func abandonedWaiter() throws {
        try withLiveServer { live in
            do {
                let waiter = try StreamClient(port: live.port, path: "/overlay?wait=0.4&since=0")
                #expect(try live.waitForMetric("overlayd_long_poll_waiters", toBe: 1))
                waiter.close()
            }
            #expect(try live.get("/healthz").status == 200)
            #expect(try live.waitForMetric("overlayd_long_poll_waiters", toBe: 0))
            #expect(try live.post("/messages", json: #"{"text": "after"}"#).status == 202)
            #expect(try live.get("/healthz").status == 200)
            #expect(try live.version() == 1)
        }
    }

    /// A channel that does not exist reads as a new one, version 0; a first long-poll from that
    /// version waits on the channel it makes (whose first version, on the real clock, is about
    /// 10^15) instead of answering at once, and is answered by its first change.
    @Test func firstLongPollOfANewChannelWaits() throws {
        try withLiveServer(clock: .real) { live in
            #expect(try live.version("/channels/fresh/overlay") == 0)
            let poll = try StreamClient(port: live.port, path: "/channels/fresh/overlay?wait=60&since=0")
            #expect(try live.waitForMetric("overlayd_long_poll_waiters", channel: "fresh", toBe: 1))
            #expect(try live.post("/channels/fresh/messages", json: #"{"text": "first"}"#).status == 202)
            let answer = try poll.response()
            #expect(answer.status == 200 && answer.json["label"]?["text"]?.string == "first")
        }
    }
}
