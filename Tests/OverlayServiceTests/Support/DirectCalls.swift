import MicroHTTP
import ServiceTestSupport
import Synchronization
import Testing

@testable import OverlayService

// The service called directly, without a server or sockets: the router's tests, and every suite
// that only needs an answer, build their requests and read their answers through these.

extension OverlayService {
    /// A service on the one test configuration (`ServiceConfiguration.testing()`: manual clock,
    /// nothing on disk, no rate limit) as `configure` changes it, with the wall clock (token
    /// expiry, a signed token's claims) on `wallClock`, or the real one.
    static func testing(
        wallClock: MovableWallClock? = nil, _ configure: (inout ServiceConfiguration) -> Void = { _ in }
    ) throws -> OverlayService {
        var configuration = ServiceConfiguration.testing()
        configure(&configuration)
        guard let wallClock else { return try OverlayService(configuration: configuration) }
        return try OverlayService(configuration: configuration) { wallClock.seconds.load(ordering: .relaxed) }
    }

    /// The answer to `request` through `handle`, the dispatch the server uses, with a responder
    /// that has no connection: a write waits for its commit; an event stream is its head and its
    /// first bytes. A long-poll still waiting fails the test.
    func answer(_ request: HTTPRequest, sourceLocation: SourceLocation = #_sourceLocation) -> HTTPResponse {
        guard let response = DetachedAnswer.handle(request, handle).response(waiting: 30) else {
            Issue.record("\(request.method) \(request.path) was not answered", sourceLocation: sourceLocation)
            return HTTPResponse(status: 0)
        }
        return response
    }
}

/// A wall clock the test moves, in Unix seconds: tokens expire and are used on it.
final class MovableWallClock: Sendable {
    let seconds: Atomic<Int64>
    init(at seconds: Int64 = 1_800_000_000) { self.seconds = Atomic(seconds) }
    func advance(_ by: Int64) { seconds.add(by, ordering: .relaxed) }
}

extension HTTPRequest {
    /// A request built by hand, its body given as text.
    init(_ method: String, _ path: String, query: [QueryItem] = [], headers: [Header] = [], body: String = "") {
        self.init(method: method, path: path, query: query, headers: headers, body: Array(body.utf8))
    }

    /// `PUT path` with `body` as JSON (and no Content-Type without a body).
    static func put(_ path: String, query: [QueryItem] = [], json body: String = "") -> HTTPRequest {
        HTTPRequest("PUT", path, query: query, headers: body.isEmpty ? [] : [.json], body: body)
    }
}

extension HTTPResponse {
    /// The body parsed as JSON, or `.null` when it is not JSON (as `HTTPReply.json` is).
    var json: JSONValue { (try? JSONParser.parse(body)) ?? .null }

    /// The `error.code` of an error body.
    var errorCode: String? { json["error"]?["code"]?.string }
}
