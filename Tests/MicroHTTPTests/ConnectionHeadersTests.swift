import Platform
import TestSupport
import Testing

@testable import MicroHTTP

/// A request from the server reads its headers through a window on its connection that is open
/// only while its handler runs (`ConnectionHeaders`), and what the handler returns labels it.
@Suite("Connection headers")
struct ConnectionHeadersTests {
    /// Inside the handler a header and the peer's address are there; a request kept past its
    /// handler reads nil and "" (its connection may be gone), from any thread.
    @Test func theWindowClosesWhenTheHandlerReturns() throws {
        let kept = Lock<[HTTPRequest]>([])
        let seen = Lock<[String?]>([])
        var options = HTTPServerOptions()
        options.port = 0
        options.threads = 1
        let server = try HTTPServer.serving(options) { request, responder in
            seen.withLock { $0 += [request.header("X-Probe"), request.remoteAddress] }
            kept.withLock { $0.append(request) }
            responder.respond(HTTPResponse(status: 204))
        }
        defer { server.stop(grace: 0) }
        let client = try RawClient(port: server.port)
        try client.send("GET /a HTTP/1.1\r\nHost: x\r\nX-Probe: here\r\nConnection: close\r\n\r\n")
        #expect(String(decoding: client.receive(), as: UTF8.self).hasPrefix("HTTP/1.1 204"))
        #expect(seen.withLock { $0 } == ["here", "127.0.0.1"])
        let request = try #require(kept.withLock { $0.first })
        #expect(request.header("X-Probe") == nil)
        #expect(request.header("Host") == nil)
        #expect(request.remoteAddress == "")
    }

    /// A context serves every request of its connection: a request kept from the first one reads
    /// nothing while the second one's handler runs, which reads its own.
    @Test func aKeptRequestDoesNotReadTheNextOnesHeaders() throws {
        let kept = Lock<HTTPRequest?>(nil)
        let seen = Lock<[String?]>([])
        let answer = try HTTPServer.exchange(
            "GET /first HTTP/1.1\r\nHost: x\r\nX-Probe: one\r\n\r\n"
                + "GET /second HTTP/1.1\r\nHost: x\r\nX-Probe: two\r\nConnection: close\r\n\r\n"
        ) { request, responder in
            if request.path == "/first" {
                kept.withLock { $0 = request }
            } else {
                let first = kept.withLock { $0 }
                seen.withLock { $0 += [first?.header("X-Probe"), request.header("X-Probe")] }
            }
            responder.respond(HTTPResponse(status: 204))
        }
        #expect(answer.hasPrefix("HTTP/1.1 204") && answer.dropFirst(12).contains("HTTP/1.1 204"))
        #expect(seen.withLock { $0 } == [nil, "two"])
    }

    /// The labels a handler returns are what its request is counted and logged under: the route
    /// in the durations, the principal in the access record.
    @Test func theReturnedLabelsCount() throws {
        let records = Lock<[AccessRecord]>([])
        let durations = RequestDurations(routes: ["none", "labelled"])
        var options = HTTPServerOptions()
        options.port = 0
        options.threads = 1
        let server = try HTTPServer(
            options: options,
            handler: { _, responder in
                responder.respond(HTTPResponse(status: 200))
                return RequestLabels(route: 1, principal: "someone")
            }, durations: durations, observer: { record in records.withLock { $0.append(record) } })
        let client = try RawClient(port: server.port)
        try client.send("GET /a HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        #expect(String(decoding: client.receive(), as: UTF8.self).hasPrefix("HTTP/1.1 200"))
        server.stop(grace: 1)
        #expect(durations.series(route: 1, method: 0).count == 1)
        #expect(durations.series(route: 0, method: 0).count == 0)
        #expect(records.withLock { $0.map(\.principal) } == ["someone"])
    }
}
