import TestSupport
import Testing

@testable import OverlayPublisher

#if canImport(Glibc)
    import Glibc
#endif

/// libcurl through the system-library target, against a loopback endpoint that records what it
/// receives.
@Suite("libcurl transport")
struct CurlTransportTests {
    private func transport(timeout: Double = 2) throws -> CurlTransport {
        try #require(CurlTransport(timeout: timeout, connectTimeout: 1))
    }

    @Test func postsTheBodyWithItsHeaders() throws {
        let endpoint = try CaptureEndpoint(answer: .status(202))
        let body = Array(#"{"version":7,"text":"Sending…"}"#.utf8)
        let result = try transport().post(url: "http://127.0.0.1:\(endpoint.port)/pub/ci?x=1", body: body)
        #expect(result == .status(202))
        let request = try #require(endpoint.requests.first)
        #expect(request.method == "POST")
        #expect(request.path == "/pub/ci?x=1")
        #expect(request.body == body)
        #expect(request.header("Content-Type") == "application/json")
        #expect(request.header("X-EventSource-Event") == "overlay")
        #expect(request.header("Content-Length") == "\(body.count)")
        #expect(request.header("Expect") == nil)
    }

    /// No `Expect: 100-continue` pause before a larger body: it goes out with the head.
    @Test func aLargeBodyArrivesWhole() throws {
        let endpoint = try CaptureEndpoint()
        let body = Array(repeating: UInt8(ascii: "x"), count: 40_000)
        #expect(try transport().post(url: "http://127.0.0.1:\(endpoint.port)/p", body: body) == .status(201))
        #expect(endpoint.requests.first?.body == body)
        #expect(endpoint.requests.first?.header("Expect") == nil)
    }

    @Test func consecutiveRequestsShareOneConnection() throws {
        let endpoint = try CaptureEndpoint()
        let curl = try transport()
        for index in 0..<5 {
            #expect(curl.post(url: "http://127.0.0.1:\(endpoint.port)/pub/c\(index)", body: [1]) == .status(201))
        }
        #expect(endpoint.requests.map(\.path) == (0..<5).map { "/pub/c\($0)" })
        #expect(endpoint.connections == 1)
    }

    @Test(arguments: [201, 202, 403, 500, 503])
    func theStatusIsReported(status: Int) throws {
        let endpoint = try CaptureEndpoint(answer: .status(status))
        #expect(try transport().post(url: "http://127.0.0.1:\(endpoint.port)/p", body: [1]) == .status(status))
    }

    @Test func aRefusedConnectionFails() throws {
        let (socket, port) = try Loopback.refusingPort()
        defer { close(socket) }
        let result = try transport().post(url: "http://127.0.0.1:\(port)/pub/ci", body: [1])
        guard case .failed(let reason) = result else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        #expect(reason.contains("onnect"))
    }

    @Test func anEndpointThatNeverAnswersTimesOut() throws {
        let endpoint = try CaptureEndpoint(answer: .hold)
        defer { endpoint.release() }
        let result = try transport(timeout: 0.3).post(url: "http://127.0.0.1:\(endpoint.port)/p", body: [1])
        guard case .failed(let reason) = result else {
            Issue.record("expected a timeout, got \(result)")
            return
        }
        #expect(reason.lowercased().contains("timed out") || reason.lowercased().contains("timeout"))
        #expect(endpoint.held == 1)
    }

    @Test func aConnectionClosedWithoutAnAnswerFails() throws {
        let endpoint = try CaptureEndpoint(answer: .close)
        let result = try transport().post(url: "http://127.0.0.1:\(endpoint.port)/p", body: [1])
        guard case .failed = result else {
            Issue.record("expected a failure, got \(result)")
            return
        }
        // The next request finds the endpoint answering again on a new connection.
        endpoint.answer(.status(201))
        #expect(try transport().post(url: "http://127.0.0.1:\(endpoint.port)/p", body: [1]) == .status(201))
    }

    @Test func anEmptyBodyIsAnEmptyPost() throws {
        let endpoint = try CaptureEndpoint()
        #expect(try transport().post(url: "http://127.0.0.1:\(endpoint.port)/p", body: []) == .status(201))
        #expect(endpoint.requests.first?.header("Content-Length") == "0")
        #expect(endpoint.requests.first?.body == [])
    }
}
