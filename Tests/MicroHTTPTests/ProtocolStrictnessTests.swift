import Platform
import TestSupport
import Testing

@testable import MicroHTTP

/// Requests that break HTTP/1.1's syntax (RFC 9112) are refused as soon as their head is in, with
/// the application's own wording of the refusal, and never reach the handler; correct requests
/// that only look unusual are served.
@Suite("Protocol strictness")
struct ProtocolStrictnessTests {
    /// A server whose handler answers 200 with the body's length; refusals are worded
    /// `refused <status>: <case>`.
    final class Server: Sendable {
        let http: HTTPServer

        init() throws {
            var options = HTTPServerOptions()
            options.port = 0
            options.threads = 1
            options.connectionTimeout = 60
            options.refusals = { refusal in
                HTTPResponse(status: refusal.status, body: Array("refused \(refusal.status): \(refusal)".utf8))
            }
            http = try HTTPServer.serving(options) { request, responder in
                responder.respond(HTTPResponse(status: 200, body: Array("body=\(request.body.count)".utf8)))
            }
        }

        deinit {
            http.stop(grace: 0)
        }
    }

    struct Case: CustomTestStringConvertible, Sendable {
        var name: String
        var head: String
        var status: Int?
        var testDescription: String { name }
    }

    static let refused: [Case] = [
        Case(
            name: "space before the colon",
            head: "POST /m HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding : chunked\r\n\r\nhello",
            status: 400),
        Case(
            name: "tab before the colon", head: "POST /m HTTP/1.1\r\nHost: x\r\nContent-Length\t: 5\r\n\r\nhello",
            status: 400),
        Case(
            name: "identity coding", head: "POST /m HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: identity\r\n\r\nhello",
            status: 501),
        Case(
            name: "gzip coding", head: "POST /m HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip\r\n\r\nhello",
            status: 501),
        Case(
            name: "gzip then chunked",
            head: "POST /m HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: gzip, chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
            status: 501),
        // libmicrohttpd reads the blank as part of the coding, and would wait for the client to
        // close to end the body.
        Case(
            name: "chunked and a trailing blank",
            head: "POST /m HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked \r\n\r\n5\r\nhello\r\n0\r\n\r\n",
            status: 501),
        Case(
            name: "chunked twice",
            head:
                "POST /m HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n",
            status: 501),
        Case(name: "bare LF everywhere", head: "POST /m HTTP/1.1\nHost: x\nContent-Length: 5\n\nhello", status: 400),
        Case(name: "bare LF after the request line", head: "GET /m HTTP/1.1\nHost: x\r\n\r\n", status: 400),
        Case(name: "bare LF after one header", head: "GET /m HTTP/1.1\r\nHost: x\nAccept: */*\r\n\r\n", status: 400),
        Case(
            name: "bare LF after trailing blanks", head: "GET /m HTTP/1.1\r\nHost: x  \nAccept: */*\r\n\r\n",
            status: 400),
        Case(name: "bare LF ending the head", head: "GET /m HTTP/1.1\r\nHost: x\r\n\n", status: 400),
        Case(name: "bare LF before the empty line", head: "GET /m HTTP/1.1\r\nHost: x\n\r\n", status: 400),
        Case(name: "NUL in a header value", head: "GET /m HTTP/1.1\r\nHost: x\r\nX-A: a\u{0}b\r\n\r\n", status: 400),
        Case(
            name: "NUL hiding a header", head: "GET /m HTTP/1.1\r\nHost: x\r\nX-A: a\u{0}Next: v\r\n\r\n", status: 400),
        Case(name: "bare CR in a header value", head: "GET /m HTTP/1.1\r\nHost: x\r\nX-A: a\rb\r\n\r\n", status: 400),
        Case(
            name: "control character in a value", head: "GET /m HTTP/1.1\r\nHost: x\r\nX-A: a\u{1}b\r\n\r\n",
            status: 400),
        Case(name: "header name with a slash", head: "GET /m HTTP/1.1\r\nHost: x\r\nX/A: a\r\n\r\n", status: 400),
        // RFC 9112 §3.2: more than one Host is 400; a check that read the first would pass what a
        // proxy reads from the second.
        Case(name: "two Host fields", head: "GET /m HTTP/1.1\r\nHost: x\r\nHost: y\r\n\r\n", status: 400),
        Case(name: "one Host twice", head: "GET /m HTTP/1.1\r\nHost: x\r\nhost: x\r\n\r\n", status: 400),
        Case(name: "two Host fields in HTTP/1.0", head: "GET /m HTTP/1.0\r\nHost: x\r\nHOST: y\r\n\r\n", status: 400),
        Case(
            name: "two Content-Type fields",
            head:
                "POST /m HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Type: application/json\r\n"
                + "Content-Length: 5\r\n\r\nhello",
            status: 400),
        Case(
            name: "one Content-Type twice",
            head:
                "POST /m HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\ncontent-type: text/plain\r\n"
                + "Content-Length: 5\r\n\r\nhello",
            status: 400),
        // libmicrohttpd parses the query into the connection's pool before any callback; past what
        // the pool holds it logs a 431 it never sends, and the client would wait for the timeout.
        Case(
            name: "33 query parameters",
            head: "GET /m?\((0..<33).map { "a\($0)=1" }.joined(separator: "&")) HTTP/1.1\r\nHost: x\r\n\r\n",
            status: 400),
        Case(
            name: "900 query parameters",
            head:
                "GET /m?\(Array(repeating: "wait=%7B%7D", count: 900).joined(separator: "&")) HTTP/1.1\r\nHost: x\r\n\r\n",
            status: 400),
    ]

    /// Sends `head` on a new connection and reads until the server closes it. An idle connection
    /// opened just before is the witness that the close came at once: the idle timeout would
    /// have closed the witness first.
    static func closedAtOnce(_ server: Server, after head: String) throws -> [UInt8] {
        let witness = try RawClient(port: server.http.port)
        let client = try RawClient(port: server.http.port)
        try client.send(head)
        let answer = client.receive()
        #expect(client.isClosed(), "the connection stayed open")
        #expect(!witness.isClosed(), "closed only by the idle timeout")
        return answer
    }

    /// Each is answered with its status before the client has closed anything, the connection is
    /// closed after it, and the handler never runs.
    @Test(arguments: refused)
    func refusedAtOnce(_ input: Case) throws {
        let server = try Server()
        let answer = try Self.closedAtOnce(server, after: input.head)
        #expect(RawClient.status(of: answer) == input.status, "\(String(decoding: answer, as: UTF8.self))")
        #expect(String(decoding: answer, as: UTF8.self).contains("refused \(input.status ?? 0)"))
        #expect(!String(decoding: answer, as: UTF8.self).contains("body="))
    }

    /// A chunk announcing more than the server would ever read is cut off as soon as it is seen,
    /// not after the body limit's worth has arrived (an answer cannot be queued mid-body).
    @Test(arguments: ["7fffffffffffffff", "FFFFFFFFFFFF", "200000;ext=1"])
    func hugeChunkCutOffAtOnce(_ size: String) throws {
        let server = try Server()
        let answer = try Self.closedAtOnce(
            server, after: "POST /m HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n\(size)\r\nabc")
        #expect(answer.isEmpty, "\(String(decoding: answer, as: UTF8.self))")
    }

    /// A later chunk announcing too much is cut off the same way.
    @Test func hugeLaterChunkCutOff() throws {
        let server = try Server()
        let answer = try Self.closedAtOnce(
            server,
            after: "POST /m HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3\r\nabc\r\n7fffffff\r\nabc")
        #expect(answer.isEmpty)
    }

    static let served: [Case] = [
        Case(name: "plain", head: "POST /m HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello", status: 200),
        Case(
            name: "blanks around values",
            head: "POST /m HTTP/1.1\r\nHost:x  \r\nX-B:\t v \t \r\nX-C:\r\nX-D: \r\nContent-Length:  5\r\n\r\nhello",
            status: 200),
        Case(name: "query and escapes", head: "GET /a%20b?x=1&y HTTP/1.1\r\nHost: x\r\n\r\n", status: 200),
        Case(name: "HTTP/1.0 without headers", head: "GET /m HTTP/1.0\r\n\r\n", status: 200),
        Case(
            name: "chunked in capitals",
            head: "POST /m HTTP/1.1\r\nHost: x\r\nTransfer-Encoding:  Chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
            status: 200),
        Case(
            name: "chunk extensions",
            head:
                "POST /m HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n3;a=b\r\nhel\r\n2\r\nlo\r\n0\r\n\r\n",
            status: 200),
        Case(name: "a folded header", head: "GET /m HTTP/1.1\r\nHost: x\r\nX-A: a\r\n b\r\n\r\n", status: 200),
        Case(name: "non-ASCII value", head: "GET /m HTTP/1.1\r\nHost: x\r\nX-A: caf\u{E9}\r\n\r\n", status: 200),
        Case(name: "a header given twice", head: "GET /m HTTP/1.1\r\nHost: x\r\nX-A: 1\r\nX-A: 2\r\n\r\n", status: 200),
        Case(
            name: "32 query parameters",
            head: "GET /m?\((0..<32).map { "a\($0)=1" }.joined(separator: "&")) HTTP/1.1\r\nHost: x\r\n\r\n",
            status: 200),
    ]

    /// Correct requests that only look unusual reach the handler, body and all.
    @Test(arguments: served)
    func servedAsUsual(_ input: Case) throws {
        let server = try Server()
        let client = try RawClient(port: server.http.port)
        // Closed after the answer, so that the whole of it is read at once.
        let lines = input.head.split(separator: "\r\n", maxSplits: 1, omittingEmptySubsequences: false)
        try client.send(lines[0] + "\r\nConnection: close\r\n" + lines[1])
        let answer = String(decoding: client.receive(), as: UTF8.self)
        #expect(RawClient.status(of: Array(answer.utf8)) == 200, "\(answer)")
        let expected = input.head.hasPrefix("POST") ? "body=5" : "body=0"
        #expect(answer.hasSuffix(expected), "\(answer)")
    }

    /// The same connection serves request after request through the checks (the head of each
    /// is judged where libmicrohttpd keeps it).
    @Test func keepAliveRequestsStayServed() throws {
        let server = try Server()
        let client = try RawClient(port: server.http.port)
        let request = "POST /m HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
        try client.send(String(repeating: request, count: 3) + "GET /m HTTP/1.1\r\nHost: x\nX: y\r\n\r\n")
        let answer = String(decoding: client.receive(), as: UTF8.self)
        #expect(answer.ranges(of: "HTTP/1.1 200").count == 3, "\(answer)")
        #expect(answer.ranges(of: "HTTP/1.1 400").count == 1, "\(answer)")
    }
}
