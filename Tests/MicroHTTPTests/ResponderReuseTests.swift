import Platform
import Testing

@testable import MicroHTTP

/// A connection's next request reuses the last one's responder only when nothing else holds it:
/// a handle kept past its request must never answer a later one, and a reused responder starts
/// every request afresh, whichever way the request reaches its machine first.
@Suite("Responder reuse")
struct ResponderReuseTests {
    /// The first request's responder, kept by its handler and answered again during the second
    /// request, answers nothing: the second request gets its own responder and its own answer.
    @Test func aKeptResponderNeverAnswersTheNextRequest() throws {
        let kept = Lock<HTTPResponder?>(nil)
        let distinct = Lock<[Bool]>([])
        let answer = try HTTPServer.exchange(
            "GET /first HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /second HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n"
        ) { request, responder in
            if request.path == "/first" {
                kept.withLock { $0 = responder }
                responder.respond(HTTPResponse(status: 204))
            } else {
                guard let first = kept.withLock({ $0 }) else { return responder.respond(HTTPResponse(status: 404)) }
                distinct.withLock { $0.append(first !== responder) }
                first.respond(HTTPResponse(status: 500))
                responder.respond(HTTPResponse(status: 202))
            }
        }
        #expect(answer.hasPrefix("HTTP/1.1 204"))
        #expect(answer.contains("HTTP/1.1 202"))
        #expect(!answer.contains("HTTP/1.1 500"))
        #expect(distinct.withLock { $0 } == [true])
    }

    /// Requests on one connection that each reach the responder's machine a different way first
    /// (the handler, a refusal before it, the handler again) are each answered as their own.
    @Test func aReusedResponderStartsEachRequestAfresh() throws {
        let answer = try HTTPServer.exchange(
            "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
                + "GET /b HTTP/1.1\r\nHost: x\r\n\r\n"
                + "POST /c HTTP/1.1\r\nHost: x\r\nContent-Length: 10\r\n\r\n0123456789",
            configure: { $0.maxBodyBytes = 4 }
        ) { request, responder in
            responder.respond(HTTPResponse(status: request.path == "/a" ? 200 : 201))
        }
        let statuses = answer.split(separator: "\r\n").filter { $0.hasPrefix("HTTP/1.1 ") }.map { $0.prefix(12) }
        #expect(statuses == ["HTTP/1.1 200", "HTTP/1.1 201", "HTTP/1.1 413"])
    }
}
