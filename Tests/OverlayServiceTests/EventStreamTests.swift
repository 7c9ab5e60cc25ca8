import Synchronization
import TestSupport
import Testing

@testable import MicroHTTP
@testable import OverlayService

#if canImport(Glibc)
    import Glibc
#endif

/// `GET /events` (Server-Sent Events, MODEL §5) through a real server and a client that decodes the
/// chunked body as it arrives.
@Suite("Event streams")
struct EventStreamTests {
    /// The exact bytes: the head, `retry: 1000`, the current overlay at once, then one event per
    /// change (a POST, and a deadline reached by `POST /clock`), each `data:` the overlay JSON that
    /// `GET /overlay` shows at that moment; nothing else.
    @Test func framing() throws {
        let live = try LiveServer()
        let stream = try StreamClient.events(port: live.port)
        #expect(stream.status == 200)
        #expect(stream.header("Content-Type") == "text/event-stream; charset=utf-8")
        #expect(stream.header("Cache-Control") == "no-cache")
        #expect(stream.header("X-Accel-Buffering") == "no")
        #expect(stream.header("Transfer-Encoding")?.lowercased() == "chunked")
        #expect(stream.header("Content-Length") == nil)

        #expect(stream.nextBlock()?.raw == "retry: 1000")
        let initial = try live.get("/overlay").text
        #expect(stream.nextBlock()?.raw == "event: overlay\nid: 0\ndata: \(initial)")

        #expect(try live.post("/messages", json: #"{"text": "Sending…", "kind": "sending"}"#).status == 202)
        let showing = try live.get("/overlay").text
        let first = stream.nextBlock()
        #expect(first?.raw == "event: overlay\nid: 1\ndata: \(showing)")
        #expect(first?.json["phase"]?.string == "showing")
        #expect(first?.json["message"]?["text"]?.string == "Sending…")

        // The slide-in ends at 0.25 s: a deadline, reached by moving the manual clock.
        #expect(try live.advance(0.3).status == 200)
        let visible = try live.get("/overlay").text
        let second = stream.nextBlock()
        #expect(second?.raw == "event: overlay\nid: 2\ndata: \(visible)")
        #expect(second?.json["phase"]?.string == "visible")

        // Moving the clock without reaching a deadline changes no version: no event.
        #expect(try live.advance(1).status == 200)
        let extra = stream.nextBlock(timeout: 0.3)
        #expect(extra == nil, "unexpected \(extra?.description ?? "")")
        #expect(stream.framingError == nil)
        #expect(!stream.ended)
    }

    /// `/events` answers `HEAD` with the stream's head and no body at all, so that the next
    /// response on the same keep-alive connection starts right after the head, and nothing stays
    /// subscribed.
    @Test func headRequest() throws {
        let live = try LiveServer()
        let start = ContinuousClock.now
        let raw = try TestClient.exchange(
            port: live.port,
            send: Array(
                ("HEAD /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                    + "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").utf8),
            timeoutSeconds: 5)
        #expect(seconds(since: start) < 3)
        let head = try TestClient.parse(raw)
        #expect(head.status == 200)
        #expect(head.header("Content-Type") == "text/event-stream; charset=utf-8")
        #expect(head.header("Cache-Control") == "no-cache")
        let text = String(decoding: raw, as: UTF8.self)
        let parts = text.split(separator: "\r\n\r\n", maxSplits: 1, omittingEmptySubsequences: false)
        #expect(parts.count == 2)
        #expect(parts.last?.hasPrefix("HTTP/1.1 200") == true, "after the HEAD answer: \(parts.last ?? "")")
        #expect(text.hasSuffix(#"{"status":"ok"}"#))
        #expect(try live.waitForMetric("overlayd_event_streams", toBe: 0, timeout: 3))
    }

    /// An HTTP/1.0 client cannot take chunks: it gets the same events unframed, and the connection
    /// closes when the stream ends.
    @Test func http10Client() throws {
        let live = try LiveServer()
        let socket = try TestClient.connect(port: live.port, timeoutSeconds: 1)
        defer { close(socket) }
        try TestClient.write(socket, Array("GET /events HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8))
        #expect(try live.waitForMetric("overlayd_event_streams", toBe: 1))
        #expect(try live.post("/messages", json: #"{"text": "x"}"#).status == 202)
        // Reads until the receive timeout (1 s): the stream stays open.
        let response = try TestClient.parse(TestClient.readAll(socket))
        #expect(response.status == 200)
        #expect(response.header("Transfer-Encoding") == nil)
        #expect(response.header("Content-Type") == "text/event-stream; charset=utf-8")
        #expect(response.text.hasPrefix("retry: 1000\n\nevent: overlay\nid: 0\ndata: {"))
        #expect(response.text.hasSuffix("\n\n"))
        #expect(response.text.contains("\n\nevent: overlay\nid: 1\ndata: {\"version\":1,"))
    }

    /// A reconnecting client: a Last-Event-ID older than the current version gets the current event
    /// at once; one equal to it gets nothing until the next change. `?lastEventId=` works the same,
    /// an id the server never had counts as old, and a non-number is 400.
    @Test func reconnectWithLastEventID() throws {
        let live = try LiveServer()
        #expect(try live.post("/messages", json: #"{"text": "one", "kind": "sending"}"#).status == 202)
        #expect(try live.advance(0.25).status == 200)
        #expect(try live.post("/messages", json: #"{"text": "two"}"#).status == 202)
        let version = try #require(try live.version())
        #expect(version == 3)

        for (path, headers) in [
            ("/events", [("Last-Event-ID", "\(version - 1)")]), ("/events?lastEventId=1", []),
            ("/events", [("Last-Event-ID", "\(version + 100)")]),
        ] as [(String, [(String, String)])] {
            let start = ContinuousClock.now
            let stream = try StreamClient.events(port: live.port, path: path, headers: headers)
            #expect(stream.nextBlock()?.raw == "retry: 1000", "\(path) \(headers)")
            let event = stream.nextEvent(timeout: 2)
            #expect(event?.version == version, "\(path) \(headers)")
            #expect(event?.json["version"]?.int == version)
            #expect(seconds(since: start) < 1.5)
        }

        let upToDate = try StreamClient.events(port: live.port, headers: [("Last-Event-ID", "\(version)")])
        let byQuery = try StreamClient.events(port: live.port, path: "/events?lastEventId=\(version)")
        for stream in [upToDate, byQuery] {
            #expect(stream.nextBlock()?.raw == "retry: 1000")
            let early = stream.nextBlock(timeout: 0.4)
            #expect(early == nil, "sent \(early?.description ?? "") to an up-to-date client")
        }
        #expect(try live.request("DELETE", "/messages/1").status == 200)
        for stream in [upToDate, byQuery] {
            let next = stream.nextEvent(timeout: 2)
            #expect(next?.version == version + 1)
            // Message 1 ended: the queued one replaces it.
            #expect(next?.json["message"]?["text"]?.string == "two")
        }

        let bad = try live.request("GET", "/events", headers: [("Last-Event-ID", "abc")])
        expectError(bad, status: 400, code: "bad_request", field: "Last-Event-ID")
        expectError(try live.get("/events?lastEventId=x1"), status: 400, code: "bad_request", field: "Last-Event-ID")
    }

    /// `: heartbeat` comment blocks arrive every `heartbeatSeconds` on an idle stream, and events
    /// still come between them.
    @Test func heartbeats() throws {
        let live = try LiveServer { $0.heartbeatSeconds = 0.2 }
        let stream = try StreamClient.events(port: live.port)
        #expect(stream.nextBlock()?.raw == "retry: 1000")
        #expect(stream.nextBlock()?.version == 0)
        let start = ContinuousClock.now
        var comments: [String] = []
        while seconds(since: start) < 1.3, let block = stream.nextBlock(timeout: 1.5) {
            #expect(block.isComment, "\(block)")
            comments.append(block.raw)
        }
        #expect(comments.count >= 3, "\(comments.count) heartbeats in 1.3 s")
        #expect(comments.count <= 9, "\(comments.count) heartbeats in 1.3 s")
        #expect(comments.allSatisfy { $0 == ": heartbeat" }, "\(comments)")
        #expect(try live.post("/messages", json: #"{"text": "between"}"#).status == 202)
        #expect(stream.nextEvent(timeout: 2)?.version == 1)
        #expect(stream.framingError == nil)
    }

    /// With the real clock, deadlines produce events on their own: a 0.3 s message is seen showing,
    /// visible, hiding and hidden, in that order, with no request but the POST.
    @Test func deadlineEventsWithRealClock() throws {
        let live = try LiveServer(clock: .real)
        let stream = try StreamClient.events(port: live.port)
        // With the real clock versions start at the wall-clock microseconds.
        let first = try #require(stream.nextEvent()?.version)
        #expect(try live.post("/messages", json: #"{"text": "brief", "kind": "info", "duration": 0.3}"#).status == 202)
        let events = stream.events(through: first + 4, timeout: 5)
        #expect(events.compactMap(\.version) == (1...4).map { first + $0 })
        #expect(events.compactMap { $0.json["phase"]?.string } == ["showing", "visible", "hiding", "hidden"])
        #expect(try live.version() == first + 4)
    }

    /// Writers on several threads change the overlay while a stream reads: the stream sees versions
    /// only grow, and its last event is the final version.
    @Test func versionsOnlyGrow() throws {
        let live = try LiveServer {
            $0.engine.maxQueue = 10_000
            $0.writesPerSecond = 0
        }
        let port = live.port
        let stream = try StreamClient.events(port: port)
        #expect(stream.nextEvent()?.version == 0)
        onThreads(6) { thread in
            for index in 0..<40 {
                if thread % 3 == 2 {
                    _ = try? TestClient.request(
                        "POST", "/clock", port: port, headers: [("Content-Type", "application/json")],
                        body: #"{"advance": 0.05}"#)
                } else {
                    _ = try? TestClient.request("POST", "/messages", port: port, body: "t\(thread) #\(index)")
                }
            }
        }
        let final = try #require(try live.version())
        #expect(final >= 160)
        let events = stream.events(through: final, timeout: 10)
        let versions = events.compactMap(\.version)
        #expect(versions.last == final)
        #expect(zip(versions, versions.dropFirst()).allSatisfy { $0 < $1 }, "not increasing: \(versions)")
        #expect(events.allSatisfy { $0.json["version"]?.int == $0.version })
        #expect(stream.framingError == nil)
    }

    /// A client that opens a stream and never reads while 2000 changes of ~2 KB events happen: the
    /// server stays healthy (fast answers, the stream's buffer bounded, memory not growing with the
    /// changes), a new stream works at once, heartbeats meanwhile push nothing out, and the slow
    /// client, once it reads, ends on the current version after losing the ones in between.
    @Test func readerThatNeverReads() throws {
        let bufferLimit = 64 * 1024
        let live = try LiveServer {
            $0.heartbeatSeconds = 0.05
            $0.eventBufferBytes = bufferLimit
            $0.writesPerSecond = 0
        }
        let port = live.port
        #expect(try live.post("/messages", json: #"{"text": "start", "kind": "sending"}"#).status == 202)
        let slow = try StreamClient.events(port: port, receiveBufferBytes: 4096)
        let residentBefore = try #require(residentBytes())

        // 256 characters, ~1 KB of UTF-8; it appears twice in each event (message and label).
        let padding = String(repeating: "𝄞", count: 240)
        let failures = Mutex<[String]>([])
        onThreads(4) { thread in
            for index in 0..<500 {
                let text = "t\(thread)-\(index) \(padding)"
                do {
                    let response = try TestClient.request(
                        "PATCH", "/messages/1", port: port, headers: [("Content-Type", "text/plain")], body: text)
                    if response.status != 200 { failures.withLock { $0.append("PATCH \(response.status)") } }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0.prefix(5) })")
        let version = try #require(try live.version())
        #expect(version == 2001)

        let healthStart = ContinuousClock.now
        #expect(try live.get("/healthz").status == 200)
        #expect(seconds(since: healthStart) < 1)
        // The server side of the stream holds at most its limit and one event more.
        let buffered = live.server.http.streams.withLock { $0.values.map(\.bufferedBytes) }
        #expect(buffered.count == 1)
        #expect(buffered.allSatisfy { $0 <= bufferLimit + 4096 }, "buffered \(buffered)")
        let growth = (residentBytes() ?? 0) - residentBefore
        print("never-reading client, 2000 changes: server buffer \(buffered) bytes, RSS growth \(growth >> 10) KiB")
        #expect(growth < 50 << 20)

        let fresh = try StreamClient.events(port: port)
        #expect(fresh.nextBlock()?.raw == "retry: 1000")
        #expect(fresh.nextEvent(timeout: 2)?.version == version)

        // Heartbeats go on meanwhile (every 0.05 s); the latest event must survive them.
        usleep(400_000)
        let drainStart = ContinuousClock.now
        let events = slow.events(through: version, timeout: 15)
        let versions = events.compactMap(\.version)
        print("the slow client then read \(versions.count) events in \(seconds(since: drainStart)) s")
        #expect(versions.last == version)
        #expect(zip(versions, versions.dropFirst()).allSatisfy { $0 < $1 })
        #expect(versions.count < 2000, "nothing was dropped: the buffer was never bounded")
        #expect(slow.framingError == nil)
        #expect(events.last?.json["message"]?["text"]?.string?.hasSuffix(padding) == true)
    }

    /// With a buffer smaller than one event (`eventBufferBytes` 1024, events of ~2 KB) a backed-up
    /// stream holds only the newest event; heartbeats that come meanwhile must not push it out, or
    /// the slow reader would stay on an old overlay until the next change.
    @Test func heartbeatKeepsNewestEventOfBackedUpStream() throws {
        let live = try LiveServer {
            $0.heartbeatSeconds = 0.02
            $0.eventBufferBytes = 1024
            $0.writesPerSecond = 0
        }
        let port = live.port
        #expect(try live.post("/messages", json: #"{"text": "start", "kind": "sending"}"#).status == 202)
        let slow = try StreamClient.events(port: port, receiveBufferBytes: 4096)
        let padding = String(repeating: "𝄞", count: 240)
        // Change the overlay until the kernel's buffers are full and the server holds an event for
        // the stream (its buffer is empty while everything fits in the socket).
        // What is held is read once, right after a round: the kernel may take more from the server
        // a moment later (an acknowledgement frees room in the send buffer), so a second look can
        // find the buffer empty again.
        var rounds = 0
        var held: [Int] = []
        repeat {
            let round = rounds
            onThreads(4) { thread in
                for index in 0..<250 {
                    _ = try? TestClient.request(
                        "PATCH", "/messages/1", port: port, headers: [("Content-Type", "text/plain")],
                        body: "r\(round) t\(thread)-\(index) \(padding)")
                }
            }
            rounds += 1
            held = live.server.http.streams.withLock { $0.values.map(\.bufferedBytes) }
        } while rounds < 10 && held.allSatisfy { $0 == 0 }
        #expect(held.count == 1 && held.allSatisfy { $0 > 0 }, "the stream never backed up: \(held)")
        let version = try #require(try live.version())
        #expect(version == 1 + rounds * 1000)
        // Several heartbeats while nothing is read.
        usleep(300_000)
        let versions = slow.events(through: version, timeout: 15).compactMap(\.version)
        #expect(versions.last == version, "the slow reader ended on \(versions.last ?? -1) of \(version)")
        #expect(slow.framingError == nil)
    }

    /// A client that disconnects is forgotten: `overlayd_event_streams` goes back down after the
    /// next heartbeat.
    @Test func disconnectedClientsAreForgottenOnHeartbeat() throws {
        let live = try LiveServer { $0.heartbeatSeconds = 0.2 }
        let streams = try (0..<3).map { _ in try StreamClient.events(port: live.port) }
        for stream in streams { #expect(stream.nextEvent()?.version == 0) }
        #expect(try live.waitForMetric("overlayd_event_streams", toBe: 3))
        streams[0].close()
        streams[1].close()
        #expect(try live.waitForMetric("overlayd_event_streams", toBe: 1, timeout: 3))
        streams[2].close()
        #expect(try live.waitForMetric("overlayd_event_streams", toBe: 0, timeout: 3))
        #expect(try live.get("/healthz").status == 200)
    }

    /// Without heartbeats, the next change finds a disconnected client gone.
    @Test func disconnectedClientsAreForgottenOnChange() throws {
        let live = try LiveServer { $0.heartbeatSeconds = 3600 }
        let streams = try (0..<2).map { _ in try StreamClient.events(port: live.port) }
        for stream in streams { #expect(stream.nextEvent()?.version == 0) }
        #expect(try live.waitForMetric("overlayd_event_streams", toBe: 2))
        for stream in streams { stream.close() }
        usleep(100_000)
        #expect(try live.metric("overlayd_event_streams") == 2)
        #expect(try live.post("/messages", json: #"{"text": "change", "kind": "sending"}"#).status == 202)
        #expect(try live.waitForMetric("overlayd_event_streams", toBe: 0, timeout: 3))
    }

    /// 300 connections held at once (150 event streams and 150 long-polls) do not stall the server,
    /// with libmicrohttpd's pool of 2 threads and with a single thread: ordinary requests are
    /// answered quickly, and one change reaches every stream and every waiter.
    @Test(arguments: [2, 1])
    func threeHundredHeldConnections(threads: Int) throws {
        let live = try LiveServer {
            $0.threads = threads
            $0.connectionsPerClient = 0
        }
        let port = live.port
        var streams: [StreamClient] = []
        var waiters: [StreamClient] = []
        for index in 0..<300 {
            if index % 2 == 0 {
                streams.append(try StreamClient.events(port: port))
            } else {
                waiters.append(try StreamClient(port: port, path: "/overlay?wait=30&since=0"))
            }
        }
        #expect(try live.waitForMetric("overlayd_event_streams", toBe: 150, timeout: 10))
        #expect(try live.waitForMetric("overlayd_long_poll_waiters", toBe: 150, timeout: 10))
        for stream in streams { #expect(stream.nextEvent(timeout: 5)?.version == 0) }

        let slowest = Mutex(0.0)
        let failures = Mutex(0)
        onThreads(4) { _ in
            for _ in 0..<25 {
                let start = ContinuousClock.now
                let status = (try? TestClient.request("GET", "/healthz", port: port).status) ?? 0
                if status != 200 { failures.withLock { $0 += 1 } }
                let elapsed = seconds(since: start)
                slowest.withLock { $0 = max($0, elapsed) }
            }
        }
        print("300 held connections, \(threads) thread(s): slowest of 100 GET /healthz \(slowest.withLock { $0 }) s")
        #expect(failures.withLock { $0 } == 0)
        #expect(slowest.withLock { $0 } < 2)

        let start = ContinuousClock.now
        #expect(try live.post("/messages", json: #"{"text": "to all"}"#).status == 202)
        var seen = 0
        for stream in streams where stream.nextEvent(timeout: 5)?.version == 1 { seen += 1 }
        var answered = 0
        for waiter in waiters {
            let response = try waiter.response(timeout: 5)
            if response.status == 200 && response.json["version"]?.int == 1 { answered += 1 }
        }
        print("300 held connections, \(threads) thread(s): one change reached all in \(seconds(since: start)) s")
        #expect(seen == 150)
        #expect(answered == 150)
        #expect(seconds(since: start) < 10)
    }

    /// Stopping the server with open streams (one of them never read) and parked long-polls takes
    /// a few seconds at most: waiters get 503, streams end, and nothing new is accepted.
    @Test func stopWithOpenStreamsAndWaiters() throws {
        let live = try LiveServer {
            $0.heartbeatSeconds = 0.1
            $0.writesPerSecond = 0
        }
        let port = live.port
        let streams = try (0..<10).map { _ in try StreamClient.events(port: port) }
        let stuck = try StreamClient.events(port: port, receiveBufferBytes: 4096)
        let waiters = try (0..<10).map { _ in try StreamClient(port: port, path: "/overlay?wait=30&since=0") }
        #expect(try live.waitForMetric("overlayd_long_poll_waiters", toBe: 10))
        #expect(try live.waitForMetric("overlayd_event_streams", toBe: 11))
        for stream in streams { #expect(stream.nextEvent()?.version == 0) }
        // Fill the stuck client's socket and the server's buffer for it.
        #expect(try live.post("/messages", json: #"{"text": "x", "kind": "sending"}"#).status == 202)
        let padding = String(repeating: "𝄞", count: 250)
        for index in 0..<300 {
            _ = try live.request(
                "PATCH", "/messages/1", headers: [("Content-Type", "text/plain")], body: "\(index) \(padding)")
        }
        let waiterAnswers = try waiters.map { try $0.response(timeout: 5) }
        #expect(waiterAnswers.allSatisfy { $0.status == 200 })
        let version = try #require(try live.version())
        let more = try (0..<10).map { _ in try StreamClient(port: port, path: "/overlay?wait=30&since=\(version)") }
        #expect(try live.waitForMetric("overlayd_long_poll_waiters", toBe: 10))

        let start = ContinuousClock.now
        live.server.stop(grace: 1)
        let elapsed = seconds(since: start)
        print("stop with 11 streams and 10 waiters open: \(elapsed) s")
        #expect(elapsed < 4)
        for waiter in more {
            let response = try waiter.response(timeout: 3)
            #expect(response.status == 503)
            #expect(response.errorCode == "shutting_down")
        }
        for stream in streams { #expect(stream.waitForClose(timeout: 3)) }
        #expect(stuck.waitForClose(timeout: 3))
        #expect(throws: (any Error).self) { try TestClient.request("GET", "/healthz", port: port) }
    }

    /// `LiveServer`'s deinit stops the server: with streams and long-polls open it is done within a
    /// few seconds, and every held client is answered or closed.
    @Test func stopByDeinit() throws {
        var streams: [StreamClient] = []
        var waiters: [StreamClient] = []
        var start = ContinuousClock.now
        try {
            let live = try LiveServer { $0.heartbeatSeconds = 0.1 }
            streams = try (0..<20).map { _ in try StreamClient.events(port: live.port) }
            waiters = try (0..<20).map { _ in try StreamClient(port: live.port, path: "/overlay?wait=30&since=0") }
            #expect(try live.waitForMetric("overlayd_long_poll_waiters", toBe: 20))
            #expect(try live.waitForMetric("overlayd_event_streams", toBe: 20))
            start = ContinuousClock.now
            withExtendedLifetime(live) {}
        }()
        let elapsed = seconds(since: start)
        print("LiveServer deinit with 20 streams and 20 waiters open: \(elapsed) s")
        #expect(elapsed < 4)
        for waiter in waiters { #expect(try waiter.response(timeout: 3).status == 503) }
        for stream in streams { #expect(stream.waitForClose(timeout: 3)) }
    }
}
