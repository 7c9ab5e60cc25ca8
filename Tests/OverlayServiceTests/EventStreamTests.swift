import Platform
import ServiceTestSupport
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
        try withLiveServer { live in
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

            // Moving the clock without reaching a deadline changes no version: no event, so the next
            // block is the next change's.
            #expect(try live.advance(1).status == 200)
            #expect(try live.post("/messages", json: #"{"text": "queued"}"#).status == 202)
            let queued = try live.get("/overlay").text
            #expect(stream.nextBlock()?.raw == "event: overlay\nid: 3\ndata: \(queued)")
            #expect(stream.framingError == nil)
            #expect(!stream.ended)
        }
    }

    /// `/events` answers `HEAD` with the stream's head and no body at all, so that the next
    /// response on the same keep-alive connection starts right after the head, and nothing stays
    /// subscribed.
    @Test func headRequest() throws {
        try withLiveServer { live in
            // A stream sent after the head would keep the connection open: the client would give up
            // without the second answer.
            let raw = try RawClient.exchange(
                port: live.port,
                send: Array(
                    ("HEAD /events HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n"
                        + "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n").utf8))
            let head = try HTTPReply.parse(raw)
            #expect(head.status == 200)
            #expect(head.header("Content-Type") == "text/event-stream; charset=utf-8")
            #expect(head.header("Cache-Control") == "no-cache")
            let text = String(decoding: raw, as: UTF8.self)
            let parts = text.split(separator: "\r\n\r\n", maxSplits: 1, omittingEmptySubsequences: false)
            #expect(parts.count == 2)
            #expect(parts.last?.hasPrefix("HTTP/1.1 200") == true, "after the HEAD answer: \(parts.last ?? "")")
            #expect(text.hasSuffix(#"{"status":"ok"}"#))
            #expect(try live.waitForMetric("overlayd_event_streams", toBe: 0))
        }
    }

    /// An HTTP/1.0 client cannot take chunks: it gets the same events unframed, on a connection
    /// that stays open.
    @Test func http10Client() throws {
        try withLiveServer { live in
            let socket = try Loopback.connect(port: live.port)
            defer { close(socket) }
            try Loopback.write(socket, Array("GET /events HTTP/1.0\r\nHost: 127.0.0.1\r\n\r\n".utf8))
            #expect(try live.waitForMetric("overlayd_event_streams", toBe: 1))
            #expect(try live.post("/messages", json: #"{"text": "x"}"#).status == 202)
            var raw: [UInt8] = []
            let second = eventually {
                if let bytes = Loopback.read(socket, milliseconds: 100) { raw += bytes }
                let text = String(decoding: raw, as: UTF8.self)
                return text.contains("\n\nevent: overlay\nid: 1\ndata: {\"version\":1,") && text.hasSuffix("\n\n")
            }
            #expect(second, "\(String(decoding: raw, as: UTF8.self))")
            #expect(!Loopback.isClosed(socket))
            let response = try HTTPReply.parse(raw)
            #expect(response.status == 200)
            #expect(response.header("Transfer-Encoding") == nil)
            #expect(response.header("Content-Type") == "text/event-stream; charset=utf-8")
            #expect(response.text.hasPrefix("retry: 1000\n\nevent: overlay\nid: 0\ndata: {"))
            #expect(response.text.hasSuffix("\n\n"))
            #expect(response.text.contains("\n\nevent: overlay\nid: 1\ndata: {\"version\":1,"))
        }
    }

    /// A reconnecting client: a Last-Event-ID older than the current version gets the current event
    /// at once; one equal to it gets nothing until the next change. `?lastEventId=` works the same,
    /// an id the server never had counts as old, and a non-number is 400.
    @Test func reconnectWithLastEventID() throws {
        try withLiveServer { live in
            #expect(try live.post("/messages", json: #"{"text": "one", "kind": "sending"}"#).status == 202)
            #expect(try live.advance(0.25).status == 200)
            #expect(try live.post("/messages", json: #"{"text": "two"}"#).status == 202)
            let version = try #require(try live.version())
            #expect(version == 3)

            for (path, headers) in [
                ("/events", [("Last-Event-ID", "\(version - 1)")]), ("/events?lastEventId=1", []),
                ("/events", [("Last-Event-ID", "\(version + 100)")]),
            ] as [(String, [(String, String)])] {
                let stream = try StreamClient.events(port: live.port, path: path, headers: headers)
                #expect(stream.nextBlock()?.raw == "retry: 1000", "\(path) \(headers)")
                let event = stream.nextEvent()
                #expect(event?.version == version, "\(path) \(headers)")
                #expect(event?.json["version"]?.int == version)
            }

            let upToDate = try StreamClient.events(port: live.port, headers: [("Last-Event-ID", "\(version)")])
            let byQuery = try StreamClient.events(port: live.port, path: "/events?lastEventId=\(version)")
            for stream in [upToDate, byQuery] { #expect(stream.nextBlock()?.raw == "retry: 1000") }
            #expect(try live.request("DELETE", "/messages/1").status == 200)
            // The first event an up-to-date client gets is the next change's.
            for stream in [upToDate, byQuery] {
                let next = stream.nextEvent()
                #expect(next?.version == version + 1)
                // Message 1 ended: the queued one replaces it.
                #expect(next?.json["message"]?["text"]?.string == "two")
            }

            let bad = try live.request("GET", "/events", headers: [("Last-Event-ID", "abc")])
            expectError(bad, status: 400, code: "bad_request", field: "Last-Event-ID")
            expectError(
                try live.get("/events?lastEventId=x1"), status: 400, code: "bad_request", field: "Last-Event-ID")
        }
    }

    /// `: heartbeat` comment blocks arrive on an idle stream, and events still come between them;
    /// with an interval of an hour, none comes before the next event.
    @Test func heartbeats() throws {
        try withLiveServer(configure: { $0.heartbeatSeconds = 0.2 }) { live in
            let stream = try StreamClient.events(port: live.port)
            #expect(stream.nextBlock()?.raw == "retry: 1000")
            #expect(stream.nextBlock()?.version == 0)
            for _ in 0..<3 {
                let block = stream.nextBlock()
                #expect(block?.raw == ": heartbeat", "\(block?.description ?? "nothing")")
            }
            #expect(try live.post("/messages", json: #"{"text": "between"}"#).status == 202)
            #expect(stream.nextEvent()?.version == 1)
            #expect(stream.framingError == nil)

            try withLiveServer(configure: { $0.heartbeatSeconds = 3600 }) { hourly in
                let quiet = try StreamClient.events(port: hourly.port)
                #expect(quiet.nextBlock()?.raw == "retry: 1000")
                #expect(quiet.nextBlock()?.version == 0)
                #expect(try hourly.post("/messages", json: #"{"text": "next"}"#).status == 202)
                let next = quiet.nextBlock()
                #expect(next?.version == 1, "\(next?.description ?? "nothing")")
            }
        }
    }

    /// With the real clock, deadlines produce events on their own: a 0.3 s message is seen showing,
    /// visible, hiding and hidden, in that order, with no request but the POST.
    @Test func deadlineEventsWithRealClock() throws {
        try withLiveServer(clock: .real) { live in
            let stream = try StreamClient.events(port: live.port)
            // With the real clock versions start at the wall-clock microseconds.
            let first = try #require(stream.nextEvent()?.version)
            #expect(
                try live.post("/messages", json: #"{"text": "brief", "kind": "info", "duration": 0.3}"#).status == 202)
            let events = stream.events(through: first + 4)
            #expect(events.compactMap(\.version) == (1...4).map { first + $0 })
            #expect(events.compactMap { $0.json["phase"]?.string } == ["showing", "visible", "hiding", "hidden"])
            #expect(try live.version() == first + 4)
        }
    }

    /// Writers on several threads change the overlay while a stream reads: the stream sees versions
    /// only grow, and its last event is the final version.
    @Test func versionsOnlyGrow() throws {
        try withLiveServer(configure: { $0.engine.maxQueue = 10_000 }) { live in
            let port = live.port
            let stream = try StreamClient.events(port: port)
            #expect(stream.nextEvent()?.version == 0)
            onThreads(6) { thread in
                for index in 0..<40 {
                    if thread % 3 == 2 {
                        _ = try? RawClient.request(
                            "POST", "/clock", port: port, headers: [("Content-Type", "application/json")],
                            body: #"{"advance": 0.05}"#)
                    } else {
                        _ = try? RawClient.request("POST", "/messages", port: port, body: "t\(thread) #\(index)")
                    }
                }
            }
            let final = try #require(try live.version())
            #expect(final >= 160)
            let events = stream.events(through: final)
            let versions = events.compactMap(\.version)
            #expect(versions.last == final)
            #expect(zip(versions, versions.dropFirst()).allSatisfy { $0 < $1 }, "not increasing: \(versions)")
            #expect(events.allSatisfy { $0.json["version"]?.int == $0.version })
            #expect(stream.framingError == nil)
        }
    }

    /// 240 characters that each change carries, ~1 KB of UTF-8; it appears twice in each event
    /// (message and label).
    static let padding = String(repeating: "𝄞", count: 240)

    /// A server with a message (1) and a stream on it whose client never reads (a 4 KB receive
    /// buffer): where the slow-reader tests start.
    static func withSlowReader(
        heartbeatSeconds: Double, eventBufferBytes: Int, _ body: (LiveServer, StreamClient) throws -> Void
    ) throws {
        try withLiveServer(configure: {
            $0.heartbeatSeconds = heartbeatSeconds
            $0.eventBufferBytes = eventBufferBytes
        }) { live in
            #expect(try live.post("/messages", json: #"{"text": "start", "kind": "sending"}"#).status == 202)
            try body(live, try StreamClient.events(port: live.port, receiveBufferBytes: 4096))
        }
    }

    /// Message 1 changed `perThread` times from each of four threads at once, each text unique and
    /// padded; what went wrong (each change must be answered 200).
    static func changeAtOnce(port: Int, perThread: Int, prefix: String = "") -> [String] {
        let failures = Lock<[String]>([])
        onThreads(4) { thread in
            for index in 0..<perThread {
                do {
                    let response = try RawClient.request(
                        "PATCH", "/messages/1", port: port, headers: [("Content-Type", "text/plain")],
                        body: "\(prefix)t\(thread)-\(index) \(padding)")
                    if response.status != 200 { failures.withLock { $0.append("PATCH \(response.status)") } }
                } catch {
                    failures.withLock { $0.append("\(error)") }
                }
            }
        }
        return failures.withLock { $0 }
    }

    /// A client that opens a stream and never reads while 2000 changes of ~2 KB events happen: the
    /// server stays healthy (it answers, the stream's buffer is bounded, so memory does not grow
    /// with the changes; `bench/latency` measures the server's RSS), a new stream works at once,
    /// heartbeats meanwhile push nothing out, and the slow client, once it reads, ends on the
    /// current version after losing the ones in between.
    @Test func readerThatNeverReads() throws {
        let bufferLimit = 64 * 1024
        try Self.withSlowReader(heartbeatSeconds: 0.05, eventBufferBytes: bufferLimit) { live, slow in
            let port = live.port
            let failures = Self.changeAtOnce(port: port, perThread: 500)
            #expect(failures.isEmpty, "\(failures.prefix(5))")
            let version = try #require(try live.version())
            #expect(version == 2001)

            #expect(try live.get("/healthz").status == 200)
            // The server side of the stream holds at most its limit and one event more.
            let buffered = live.server.http.streams.all.map(\.bufferedBytes)
            #expect(buffered.count == 1)
            #expect(buffered.allSatisfy { $0 <= bufferLimit + 4096 }, "buffered \(buffered)")

            let fresh = try StreamClient.events(port: port)
            #expect(fresh.nextBlock()?.raw == "retry: 1000")
            #expect(fresh.nextEvent()?.version == version)

            // Heartbeats go on meanwhile (every 0.05 s, to every stream at once: the fresh one
            // counts them); the latest event must survive them.
            for _ in 0..<3 { #expect(fresh.nextBlock()?.isComment == true) }
            let events = slow.events(through: version)
            let versions = events.compactMap(\.version)
            #expect(versions.last == version)
            #expect(zip(versions, versions.dropFirst()).allSatisfy { $0 < $1 })
            #expect(versions.count < 2000, "nothing was dropped: the buffer was never bounded")
            #expect(slow.framingError == nil)
            #expect(events.last?.json["message"]?["text"]?.string?.hasSuffix(Self.padding) == true)
        }
    }

    /// With a buffer smaller than one event (`eventBufferBytes` 1024, events of ~2 KB) a backed-up
    /// stream holds only the newest event; heartbeats that come meanwhile must not push it out, or
    /// the slow reader would stay on an old overlay until the next change.
    @Test func heartbeatKeepsNewestEventOfBackedUpStream() throws {
        try Self.withSlowReader(heartbeatSeconds: 0.02, eventBufferBytes: 1024) { live, slow in
            let port = live.port
            // Change the overlay until the kernel's buffers are full and the server holds an event for
            // the stream (its buffer is empty while everything fits in the socket).
            // What is held is read once, right after a round: the kernel may take more from the server
            // a moment later (an acknowledgement frees room in the send buffer), so a second look can
            // find the buffer empty again.
            var rounds = 0
            var held: [Int] = []
            repeat {
                let failures = Self.changeAtOnce(port: port, perThread: 250, prefix: "r\(rounds) ")
                #expect(failures.isEmpty, "\(failures.prefix(5))")
                rounds += 1
                held = live.server.http.streams.all.map(\.bufferedBytes)
            } while rounds < 10 && held.allSatisfy { $0 == 0 }
            #expect(held.count == 1 && held.allSatisfy { $0 > 0 }, "the stream never backed up: \(held)")
            let version = try #require(try live.version())
            #expect(version == 1 + rounds * 1000)
            // Several heartbeats while nothing is read (every stream gets each: a reading one counts).
            let witness = try StreamClient.events(port: port)
            #expect(witness.nextEvent()?.version == version)
            for _ in 0..<3 { #expect(witness.nextBlock()?.isComment == true) }
            let versions = slow.events(through: version).compactMap(\.version)
            #expect(versions.last == version, "the slow reader ended on \(versions.last ?? -1) of \(version)")
            #expect(slow.framingError == nil)
        }
    }

    /// A client that disconnects is forgotten: `overlayd_event_streams` goes back down after the
    /// next heartbeat (on a server without the sweep, which would find it too).
    @Test func disconnectedClientsAreForgottenOnHeartbeat() throws {
        try withUnsweptServer(configure: { $0.heartbeatSeconds = 0.2 }) { live in
            let streams = try (0..<3).map { _ in try StreamClient.events(port: live.port) }
            for stream in streams { #expect(stream.nextEvent()?.version == 0) }
            #expect(try eventually { try live.eventStreams() == 3 })
            streams[0].close()
            streams[1].close()
            #expect(try eventually { try live.eventStreams() == 1 })
            streams[2].close()
            #expect(try eventually { try live.eventStreams() == 0 })
            #expect(try RawClient.request("GET", "/healthz", port: live.port).status == 200)
        }
    }

    /// Without heartbeats (and without the sweep), a disconnected client stays counted until
    /// changes find it gone: the first write after the close reaches a socket the client has
    /// closed (its kernel answers with a reset), and the next one fails and ends the stream.
    @Test func disconnectedClientsAreForgottenOnChange() throws {
        try withUnsweptServer(configure: { $0.heartbeatSeconds = 3600 }) { live in
            let streams = try (0..<2).map { _ in try StreamClient.events(port: live.port) }
            for stream in streams { #expect(stream.nextEvent()?.version == 0) }
            #expect(try eventually { try live.eventStreams() == 2 })
            for stream in streams { stream.close() }
            // Both clients' closes have reached the server (their connections wait to be closed).
            #expect(eventually { TCPTable().served(onPort: live.port, in: .closeWait).count == 2 })
            #expect(try live.eventStreams() == 2)
            func change(_ text: String) throws -> Int {
                try RawClient.request(
                    "POST", "/messages", port: live.port, headers: [("Content-Type", "application/json")],
                    body: #"{"text": "\#(text)"}"#
                ).status
            }
            #expect(try change("first") == 202)
            // Written to both: the clients' kernels reset the connections, which leave CLOSE_WAIT.
            #expect(eventually { TCPTable().served(onPort: live.port, in: .closeWait).isEmpty })
            #expect(try change("second") == 202)
            #expect(try eventually { try live.eventStreams() == 0 })
        }
    }
}
