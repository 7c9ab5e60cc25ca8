import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// Every error status of MODEL §5, each with the error body `{"error": {"code", "message"[, "field"]}}`,
/// and each leaving the overlay, the queue and the message list exactly as they were.
///
/// Each case runs against its own server holding a shown message (1) and a queued one (2).
@Suite("Error answers")
struct ErrorTests {
    @Test("400 for malformed JSON", arguments: malformedJSON)
    func malformed(_ bad: BadRequest) throws { try check(bad) }

    @Test("400 for a field of the wrong type, unknown or repeated", arguments: badFields)
    func badField(_ bad: BadRequest) throws { try check(bad) }

    @Test("404 for an unknown path or id", arguments: notFound)
    func unknown(_ bad: BadRequest) throws { try check(bad) }

    @Test("415 for a body of another type", arguments: unsupportedType)
    func unsupported(_ bad: BadRequest) throws { try check(bad) }

    @Test("422 for a field out of range", arguments: outOfRange)
    func invalid(_ bad: BadRequest) throws { try check(bad) }

    /// 405 names the method and lists the allowed ones in `Allow`.
    @Test(arguments: methodNotAllowed)
    func wrongMethod(method: String, path: String, allow: String) throws {
        try withLiveServer(started: LiveServer.startedWithTwoMessages()) { live in
            let before = try live.observableState()
            let response = try live.request(method, path)
            #expect(response.header("Allow") == allow)
            if method == "HEAD" {
                #expect(response.status == 405)
                #expect(response.body.isEmpty)
            } else {
                expectError(response, status: 405, code: "method_not_allowed")
                #expect(response.json["error"]?["message"]?.string?.contains(method) == true)
            }
            try live.expectUnchanged(since: before)
        }
    }

    /// 409: PATCH or DELETE of a message that has ended (done, cancelled, preempted).
    @Test func changeOfEndedMessage() throws {
        try withLiveServer(started: LiveServer.startedWithTwoMessages()) { live in
            #expect(try live.request("DELETE", "/messages/2").status == 200)
            #expect(try live.request("POST", "/messages?duration=1", body: "short").status == 202)
            try live.advance(0.5)
            #expect(try live.request("DELETE", "/messages/1").status == 200)
            // Message 3 now shows for 1 s from 1.5, and ends done at 2.5.
            try live.advance(1)
            #expect(try live.get("/messages/3").json["state"]?.string == "done")

            let before = try live.observableState()
            for (method, id) in [("PATCH", 1), ("DELETE", 1), ("PATCH", 2), ("DELETE", 2), ("PATCH", 3), ("DELETE", 3)]
            {
                let response = try live.request(
                    method, "/messages/\(id)", headers: [("Content-Type", "application/json")],
                    body: method == "PATCH" ? #"{"text": "too late"}"# : nil)
                expectError(response, status: 409, code: "message_ended")
                #expect(response.json["error"]?["message"]?.string?.contains("\(id)") == true)
            }
            try live.expectUnchanged(since: before)
            #expect(try live.get("/messages/1").json["text"]?.string == "first")
        }
    }

    /// 413 as soon as Content-Length says the body is over 16 KiB; 16 KiB itself is fine.
    @Test func bodyTooLargeByContentLength() throws {
        try withLiveServer(started: LiveServer.startedWithTwoMessages()) { live in
            let before = try live.observableState()
            for contentType in ["text/plain", "application/json"] {
                let body = "{\"text\": \"" + String(repeating: "a", count: 16 * 1024) + "\"}"
                let response = try live.request(
                    "POST", "/messages", headers: [("Content-Type", contentType)], body: body)
                expectError(response, status: 413, code: "payload_too_large")
            }
            let patch = try live.request(
                "PATCH", "/messages/2", headers: [("Content-Type", "text/plain")],
                body: String(repeating: " ", count: 16 * 1024) + "x")
            expectError(patch, status: 413, code: "payload_too_large")
            try live.expectUnchanged(since: before)

            let limit = try live.request(
                "POST", "/messages", headers: [("Content-Type", "text/plain")],
                body: String(repeating: " ", count: 16 * 1024 - 3) + "fit")
            #expect(limit.status == 202)
            #expect(limit.json["text"]?.string == "fit")
        }
    }

    /// 413 for a chunked body once it passes 16 KiB (no Content-Length to refuse it early).
    @Test func bodyTooLargeChunked() throws {
        try withLiveServer(started: LiveServer.startedWithTwoMessages()) { live in
            let before = try live.observableState()
            func chunked(_ body: [UInt8]) throws -> HTTPReply {
                var raw = Array(
                    "POST /messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\nConnection: close\r\n\r\n"
                        .utf8)
                var offset = 0
                while offset < body.count {
                    let piece = body[offset..<min(offset + 4000, body.count)]
                    raw += Array((String(piece.count, radix: 16) + "\r\n").utf8) + piece + Array("\r\n".utf8)
                    offset += piece.count
                }
                raw += Array("0\r\n\r\n".utf8)
                return try HTTPReply.parse(RawClient.exchange(port: live.port, send: raw))
            }
            for size in [16 * 1024 + 1, 40_000, 300_000] {
                let response = try chunked(Array(repeating: UInt8(ascii: " "), count: size - 1) + [UInt8(ascii: "x")])
                expectError(response, status: 413, code: "payload_too_large")
            }
            try live.expectUnchanged(since: before)
            let fits = try chunked(Array(repeating: UInt8(ascii: " "), count: 16 * 1024 - 3) + Array("fit".utf8))
            #expect(fits.status == 202)
            #expect(fits.json["text"]?.string == "fit")
        }
    }

    /// 503 with Retry-After once maxQueue messages wait; the queue is unchanged and frees up later.
    @Test func queueFull() throws {
        try withLiveServer(configure: { $0.engine.maxQueue = 2 }) { live in
            for text in ["shown", "waiting 1", "waiting 2"] {
                #expect(try live.request("POST", "/messages", body: text).status == 202)
            }
            let before = try live.observableState()
            #expect(before.queued == 2)
            let full = try live.request("POST", "/messages", body: "one too many")
            expectError(full, status: 503, code: "queue_full")
            // The shown info message is displayed 0.25 → 2.75: 2.75 s from now, rounded up.
            #expect(full.header("Retry-After") == "3")
            try live.expectUnchanged(since: before)

            try live.advance(2)
            let later = try live.request("POST", "/messages", body: "still too many")
            expectError(later, status: 503, code: "queue_full")
            #expect(later.header("Retry-After") == "1")

            try live.advance(0.75)
            let accepted = try live.request("POST", "/messages", body: "fits now")
            #expect(accepted.status == 202)
            #expect(accepted.json["id"]?.int == 4)
        }
    }

    /// An immediate POST whose replaced sticky message would go back to a full queue is refused too.
    @Test func queueFullForImmediateReplacingSticky() throws {
        try withLiveServer(configure: { $0.engine.maxQueue = 1 }) { live in
            #expect(try live.request("POST", "/messages?kind=sending", body: "Sending…").status == 202)
            #expect(try live.request("POST", "/messages", body: "waiting").status == 202)
            let before = try live.observableState()
            let response = try live.request("POST", "/messages?immediate", body: "urgent")
            expectError(response, status: 503, code: "queue_full")
            // A sticky message has no end in sight: the client is told to look again in 5 s.
            #expect(response.header("Retry-After") == "5")
            try live.expectUnchanged(since: before)
        }
    }
}
