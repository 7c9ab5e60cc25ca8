import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

#if canImport(Glibc)
    import Glibc
#endif

/// Bytes that are not a proper HTTP request, sent over a raw socket: the server answers an error or
/// closes, never crashes, never changes the queue, and goes on answering (MODEL §5: "Nothing a client
/// sends may crash the process or corrupt the queue").
@Suite("Malformed input")
struct MalformedInputTests {
    /// Raw bytes and the statuses allowed in answer to them (none: the server may also just close).
    struct RawInput: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var allowed: Set<Int>

        var testDescription: String { name }
    }

    /// Deterministic noise: the same "random" bytes on every run.
    static func noise(count: Int, seed: UInt64) -> [UInt8] {
        var state = seed
        return (0..<count).map { _ in
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return UInt8(truncatingIfNeeded: state >> 56)
        }
    }

    static let rawInputs: [RawInput] = [
        RawInput(
            name: "binary garbage", bytes: [0, 1, 2] + Array("garbage".utf8) + [0xFF, 0xFE, 13, 10, 13, 10],
            allowed: [400]),
        RawInput(name: "4 KiB of noise", bytes: noise(count: 4096, seed: 42), allowed: [400, 414, 431]),
        RawInput(
            name: "noise after a request line",
            bytes: Array("POST /messages HTTP/1.1\r\n".utf8) + noise(count: 2000, seed: 7), allowed: [400, 431]),
        RawInput(
            name: "TLS client hello",
            bytes: [0x16, 0x03, 0x01, 0x00, 0xA5, 0x01, 0x00, 0x00, 0xA1, 0x03, 0x03] + noise(count: 160, seed: 3),
            allowed: [400]),
        RawInput(name: "only line breaks", bytes: Array("\r\n\r\n\r\n\r\n".utf8), allowed: [400]),
        RawInput(name: "no HTTP version", bytes: Array("GET /healthz\r\n\r\n".utf8), allowed: [400]),
        RawInput(
            name: "unknown HTTP version",
            bytes: Array("POST /messages HTTP/9.9\r\nHost: x\r\nContent-Length: 1\r\n\r\na".utf8), allowed: [400, 505]),
        RawInput(
            name: "header line without colon",
            bytes: Array("POST /messages HTTP/1.1\r\nHost: x\r\nnot a header\r\nContent-Length: 1\r\n\r\na".utf8),
            allowed: [400]),
        RawInput(
            name: "negative Content-Length",
            bytes: Array("POST /messages HTTP/1.1\r\nHost: x\r\nContent-Length: -5\r\n\r\nabc".utf8), allowed: [400]),
        RawInput(
            name: "Content-Length beyond 64 bits",
            bytes: Array(
                "POST /messages HTTP/1.1\r\nHost: x\r\nContent-Length: 99999999999999999999999\r\n\r\nabc".utf8),
            allowed: [400, 413]),
        RawInput(
            name: "Content-Length not a number",
            bytes: Array("POST /messages HTTP/1.1\r\nHost: x\r\nContent-Length: ten\r\n\r\nabc".utf8), allowed: [400]),
        RawInput(
            name: "bad chunk size",
            bytes: Array(
                "POST /messages HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nabc\r\n0\r\n\r\n".utf8),
            allowed: [400]),
        RawInput(
            name: "chunk size beyond 64 bits",
            bytes: Array(
                "POST /messages HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nFFFFFFFFFFFFFFFFFFFF\r\nabc\r\n0\r\n\r\n"
                    .utf8), allowed: [400, 413]),
        RawInput(
            name: "unknown transfer coding",
            bytes: Array("POST /messages HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\nabc".utf8),
            allowed: [400, 411, 501]),
        RawInput(
            name: "truncated head", bytes: Array("POST /messages HTTP/1.1\r\nHost: x\r\nContent-Le".utf8), allowed: []),
        RawInput(
            name: "truncated body",
            bytes: Array(
                "POST /messages HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\nabc".utf8),
            allowed: []),
        RawInput(
            name: "truncated chunked body",
            bytes: Array("POST /messages HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n10\r\nabc".utf8),
            allowed: []),
        RawInput(name: "truncated request line", bytes: Array("DELETE /messages/1".utf8), allowed: []),
    ]

    /// Each raw input on its own connection; afterwards the state is as before and /healthz answers.
    @Test(arguments: rawInputs)
    func rawBytes(_ input: RawInput) throws {
        try withLiveServer(started: LiveServer.startedWithTwoMessages { $0.connectionTimeout = 1 }) { live in
            let before = try live.observableState()
            let raw = try RawClient.exchange(port: live.port, send: input.bytes)
            if !raw.isEmpty {
                let response = try HTTPReply.parse(raw)
                #expect(input.allowed.contains(response.status), "answered \(response.status)")
            }
            try live.expectUnchanged(since: before)
        }
    }

    /// A 100 KB header value, a 100 KB path and a thousand headers are refused (431, 414 or 413)
    /// without harm.
    @Test func oversizedHeads() throws {
        try withLiveServer(started: LiveServer.startedWithTwoMessages()) { live in
            let before = try live.observableState()
            let big = String(repeating: "a", count: 100_000)
            let value = try live.request(
                "POST", "/messages", headers: [("X-Big", big), ("Content-Type", "text/plain")], body: "hi")
            #expect([413, 431].contains(value.status))
            let path = try live.request("POST", "/messages?text=" + big)
            #expect([413, 414, 431].contains(path.status))
            // A request line past the pool made of many repeated parameters, as schemathesis sends
            // them to the operations that take a query: libmicrohttpd's own 414 (openapi.yaml).
            let query = (0..<100).map { _ in "after=" + String(repeating: "9", count: 90) }.joined(separator: "&")
            #expect(try live.request("GET", "/messages?" + query).status == 414)
            let many = try live.request(
                "POST", "/messages", headers: (0..<1000).map { ("X-Header-\($0)", String(repeating: "v", count: 60)) },
                body: "hi")
            #expect([413, 431].contains(many.status))
            try live.expectUnchanged(since: before)
        }
    }

    /// Methods overlayd does not know are 405 with Allow, on every path; unknown paths stay 404.
    @Test func bogusMethods() throws {
        try withLiveServer(started: LiveServer.startedWithTwoMessages()) { live in
            let before = try live.observableState()
            for method in ["BREW", "G@T", "CONNECT", "TRACE", "PROPFIND", String(repeating: "X", count: 2000)] {
                let response = try live.request(method, "/messages/1")
                #expect([400, 405, 501].contains(response.status), "\(method.prefix(10)): \(response.status)")
                if response.status == 405 {
                    #expect(response.header("Allow") == "GET, PATCH, DELETE, HEAD, OPTIONS")
                }
            }
            expectError(try live.request("BREW", "/coffee"), status: 404, code: "not_found")
            try live.expectUnchanged(since: before)
        }
    }

    /// An encoded NUL neither cuts a path short (which would name another resource) nor a value:
    /// in a query it is the character U+0000, as in a form body.
    @Test func encodedNul() throws {
        try withLiveServer(started: LiveServer.startedWithTwoMessages()) { live in
            let before = try live.observableState()
            expectError(try live.request("DELETE", "/messages/1%00x"), status: 404, code: "not_found")
            expectError(try live.request("DELETE", "/messages/1%00"), status: 404, code: "not_found")
            expectError(try live.get("/messages/%00"), status: 404, code: "not_found")
            expectError(try live.get("/overlay%00/x"), status: 404, code: "not_found")
            expectError(
                try live.request(
                    "POST", "/messages?kind=sent%00", headers: [("Content-Type", "text/plain")], body: "a"),
                status: 422, code: "invalid_field", field: "kind")
            try live.expectUnchanged(since: before)
            let posted = try live.request("POST", "/messages?text=a%00b")
            #expect(posted.status == 202)
            #expect(posted.json["text"]?.string == "a\u{0}b")
        }
    }

    /// Idle and half-sent connections do not hold up other clients.
    @Test func idleConnectionsDoNotBlock() throws {
        try withLiveServer(started: LiveServer.startedWithTwoMessages { $0.threads = 1 }) { live in
            var sockets: [Int32] = []
            defer { sockets.forEach { _ = close($0) } }
            for index in 0..<20 {
                let socket = try Loopback.connect(port: live.port)
                sockets.append(socket)
                if index % 2 == 0 {
                    try Loopback.write(
                        socket, Array("POST /messages HTTP/1.1\r\nHost: x\r\nContent-Length: 50\r\n\r\nab".utf8))
                }
            }
            let before = try live.observableState()
            #expect(before.queued == 1)
            #expect(try live.request("POST", "/messages", body: "still served").status == 202)
            #expect(try live.observableState().queued == 2)
        }
    }

    /// Requests pipelined on one connection are each answered, in order.
    @Test func pipelinedRequests() throws {
        try withLiveServer(started: LiveServer.startedWithTwoMessages()) { live in
            let one = "POST /messages HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 5\r\n\r\nthird"
            let two = "POST /messages HTTP/1.1\r\nHost: x\r\nContent-Length: 6\r\n\r\nfourth"
            let three = "GET /messages HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
            let raw = try RawClient.exchange(port: live.port, send: Array((one + two + three).utf8))
            let text = String(decoding: raw, as: UTF8.self)
            #expect(text.components(separatedBy: "HTTP/1.1 202").count == 3)
            #expect(text.contains("Location: /messages/3"))
            #expect(text.contains("Location: /messages/4"))
            let list = try live.get("/messages").json["messages"]?.array ?? []
            #expect(list.map { $0["text"]?.string } == ["first", "second", "third", "fourth"])
        }
    }
}

extension String {
    /// Foundation-free split on a separator string, for counting occurrences in raw responses.
    fileprivate func components(separatedBy separator: String) -> [Substring] {
        var parts: [Substring] = []
        var rest = self[...]
        while let range = rest.firstRange(of: separator) {
            parts.append(rest[..<range.lowerBound])
            rest = rest[range.upperBound...]
        }
        parts.append(rest)
        return parts
    }
}
