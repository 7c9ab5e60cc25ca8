import Platform
import TestSupport
import Testing

@testable import MicroHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// Every response carries one `Date` (RFC 9110 §6.6.1), in the IMF-fixdate form, of the moment it
/// was sent: whether the server formats it (a fan-out's prepared answer) or libmicrohttpd does.
@Suite("Date header")
struct DateHeaderTests {
    /// IMF-fixdate for instants whose date is known, across leap days and 2038.
    @Test(arguments: [
        (0, "Thu, 01 Jan 1970 00:00:00 GMT"),
        (784_111_777, "Sun, 06 Nov 1994 08:49:37 GMT"),
        (951_782_400, "Tue, 29 Feb 2000 00:00:00 GMT"),
        (1_709_251_199, "Thu, 29 Feb 2024 23:59:59 GMT"),
        (2_147_483_648, "Tue, 19 Jan 2038 03:14:08 GMT"),
        (4_102_444_800, "Fri, 01 Jan 2100 00:00:00 GMT"),
    ])
    func formatsKnownInstants(second: Int, expected: String) {
        var buffer = [UInt8](repeating: 0xFF, count: 32)
        buffer.withUnsafeMutableBytes { HTTPDate.format(second, into: $0) }
        #expect(String(decoding: buffer.prefix(HTTPDate.length), as: UTF8.self) == expected)
        #expect(buffer[HTTPDate.length...].allSatisfy { $0 == 0 })
    }

    /// The value formatted for now is the current second's.
    @Test func currentValueIsNow() {
        for _ in 0..<3 {
            let before = time(nil)
            let text = HTTPDate.withCurrent { String(cString: $0) }
            let after = time(nil)
            #expect(text.utf8.count == HTTPDate.length)
            #expect((before...after).contains { Self.format($0) == text })
        }
    }

    /// A server whose paths each answer one way: built per request, prepared with or without its
    /// own date, streamed, or refused by the server itself.
    static func server() throws -> HTTPServer {
        var options = HTTPServerOptions()
        options.port = 0
        options.threads = 2
        options.maxBodyBytes = 4
        let undated = Lock<HTTPResponse?>(nil)
        return try HTTPServer.serving(options) { request, responder in
            let body = Array("ok".utf8)
            switch request.path {
            case "/dated":
                var response = HTTPResponse(status: 200, body: body)
                response.prepare(dated: true)
                responder.respond(response)
            case "/kept":
                // Prepared once and sent again on later requests, as a version's 304 is.
                let response = undated.withLock { kept -> HTTPResponse in
                    if let kept { return kept }
                    var response = HTTPResponse(status: 200, body: body)
                    response.prepare()
                    kept = response
                    return response
                }
                responder.respond(response)
            case "/stream":
                let stream = responder.stream(headers: [])
                stream?.send(body)
                stream?.end()
            default:
                responder.respond(HTTPResponse(status: 200, body: body))
            }
        }
    }

    /// Each kind of answer has exactly one Date, of the moment it was sent.
    @Test(arguments: ["/built", "/dated", "/kept", "/stream", "/too-large"])
    func everyAnswerIsDatedNow(path: String) throws {
        let server = try Self.server()
        defer { server.stop(grace: 0) }
        let client = try RawClient(port: server.port)
        let before = time(nil)
        if path == "/too-large" {
            try client.send("POST /x HTTP/1.1\r\nHost: a\r\nContent-Length: 10\r\nConnection: close\r\n\r\n0123456789")
        } else {
            try client.send("GET \(path) HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
        }
        let received = String(decoding: client.receive(), as: UTF8.self)
        let head = received.split(separator: "\r\n\r\n", maxSplits: 1).first.map(String.init) ?? ""
        let after = time(nil)
        let dates = head.split(separator: "\r\n").filter { $0.lowercased().hasPrefix("date:") }
        #expect(path != "/too-large" || head.hasPrefix("HTTP/1.1 413"))
        #expect(dates.count == 1, "\(head)")
        let value = dates.first.map { String($0.dropFirst("Date:".count).drop { $0 == " " }) }
        #expect((before...after).contains { Self.format($0) == value }, "\(head)")
    }

    /// A prepared answer kept and sent again later is dated at each send, not when it was built.
    @Test func keptAnswerIsDatedAtEachSend() throws {
        let server = try Self.server()
        defer { server.stop(grace: 0) }
        var seen: [String] = []
        for attempt in 0..<2 {
            // The second send comes in a later second of the clock than the first was dated in.
            if attempt > 0 {
                let first = time(nil)
                #expect(eventually { time(nil) > first })
            }
            let client = try RawClient(port: server.port)
            try client.send("GET /kept HTTP/1.1\r\nHost: a\r\nConnection: close\r\n\r\n")
            let text = String(decoding: client.receive(), as: UTF8.self)
            let date = text.split(separator: "\r\n").first { $0.hasPrefix("Date: ") }
            seen.append(date.map { String($0.dropFirst(6)) } ?? "")
        }
        #expect(seen[0].count == HTTPDate.length && seen[1].count == HTTPDate.length)
        #expect(seen[0] != seen[1])
    }

    /// The reference formatting, with the C library's strftime in the C locale.
    static func format(_ second: time_t) -> String {
        var time = second
        var fields = tm()
        gmtime_r(&time, &fields)
        var buffer = [CChar](repeating: 0, count: 64)
        let count = strftime(&buffer, buffer.count, "%a, %d %b %Y %H:%M:%S GMT", &fields)
        return String(decoding: buffer.prefix(count).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
