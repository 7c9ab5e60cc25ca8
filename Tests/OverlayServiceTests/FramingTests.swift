import MicroHTTP
import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// How a request names its host and its body's type, and the request target of `OPTIONS *`, as a
/// hostile client sends them: a field a request may give once, given twice, is refused before
/// any check reads the first of them.
@Suite("Framing")
struct FramingTests {
    /// A raw request whose head lines are exactly `lines` (RawClient.request always adds a Host).
    static func raw(
        _ live: LiveServer, _ requestLine: String, _ lines: [String], body: String = ""
    ) throws
        -> HTTPReply
    {
        var head = "\(requestLine)\r\n"
        for line in lines { head += "\(line)\r\n" }
        head += "Connection: close\r\nContent-Length: \(body.utf8.count)\r\n\r\n"
        return try HTTPReply.parse(RawClient.exchange(port: live.port, send: Array((head + body).utf8)))
    }

    /// Two `Host` fields are 400 (RFC 9112 §3.2), whichever comes first: the DNS-rebinding check
    /// must not pass a request on its first Host while a proxy or the page reads the second.
    @Test(arguments: [
        ["Host: 127.0.0.1", "Host: evil.example"],
        ["Host: evil.example", "Host: 127.0.0.1"],
        ["Host: 127.0.0.1", "Host: 127.0.0.1"],
        ["Host: 127.0.0.1", "host: localhost"],
        ["Host: 127.0.0.1", "Host:"],
    ])
    func twoHostFieldsRefused(_ hosts: [String]) throws {
        try withLiveServer { live in
            let before = try live.observableState()
            let read = try Self.raw(live, "GET /overlay HTTP/1.1", hosts)
            expectError(read, status: 400, code: "bad_request")
            let write = try Self.raw(live, "POST /messages HTTP/1.1", hosts + ["Content-Type: text/plain"], body: "hi")
            expectError(write, status: 400, code: "bad_request")
            #expect(try live.observableState() == before)
        }
    }

    /// Two `Content-Type` fields are 400, equal or not: the body's type would be a guess.
    @Test(arguments: [
        ["Content-Type: text/plain", "Content-Type: application/json"],
        ["Content-Type: application/json", "Content-Type: application/json"],
        ["Content-Type: text/plain", "content-type: text/plain; charset=utf-8"],
    ])
    func twoContentTypesRefused(_ types: [String]) throws {
        try withLiveServer { live in
            let before = try live.observableState()
            let reply = try Self.raw(
                live, "POST /messages HTTP/1.1", ["Host: 127.0.0.1"] + types, body: #"{"text":"a"}"#)
            expectError(reply, status: 400, code: "bad_request")
            #expect(try live.observableState() == before)
        }
    }

    /// One of each, and fields given twice that may be, are served as before.
    @Test func oneOfEachServed() throws {
        try withLiveServer { live in
            let reply = try Self.raw(
                live, "POST /messages HTTP/1.1",
                [
                    "Host: 127.0.0.1", "Accept: text/plain", "Accept: application/json",
                    "Content-Type: application/json",
                ],
                body: #"{"text":"a"}"#)
            #expect(reply.status == 202, "\(reply.text)")
        }
    }

    /// `OPTIONS *` asks about the server as a whole (RFC 9110 §9.3.7): answered as OPTIONS on a
    /// path is, 204, with every method the server implements.
    @Test func optionsAsteriskRouted() throws {
        let service = try OverlayService.testing()
        let response = service.answer(HTTPRequest("OPTIONS", "*"))
        #expect(response.status == 204)
        #expect(response.header("Allow") == "GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS")
        // Only OPTIONS takes the asterisk: any other method there names no resource.
        #expect(service.answer(HTTPRequest("GET", "*")).status == 404)
    }

    /// The same through libmicrohttpd: it hands the asterisk over as the path.
    @Test func optionsAsteriskLive() throws {
        try withLiveServer { live in
            let reply = try Self.raw(live, "OPTIONS * HTTP/1.1", ["Host: 127.0.0.1"])
            #expect(reply.status == 204, "\(reply.text)")
            #expect(reply.header("Allow") == "GET, POST, PUT, PATCH, DELETE, HEAD, OPTIONS")
            // The DNS-rebinding check applies as to any other OPTIONS.
            let rebound = try Self.raw(live, "OPTIONS * HTTP/1.1", ["Host: evil.example"])
            expectError(rebound, status: 403, code: "host_not_allowed")
        }
    }
}
