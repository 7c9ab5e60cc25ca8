import MicroHTTP
import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

// The service with an admin token, called as one principal or another: the access suites and
// every suite that checks a route's guard share these.

/// The credentials of the guarded test servers: `OverlayService.guarded`'s admin token (and a
/// read token for a suite that sets `readToken`); `LiveServer.tokenGuarded`'s write and read tokens.
enum Credential {
    static let admin = "adm-0123456789-secret"
    static let reader = "rdr-0123456789-secret"
    static let write = "w-7f3a9c1e-write"
    static let read = "r-51d0b2aa-read"

    /// `Authorization: Bearer credential`, for a request built by hand.
    static func bearer(_ credential: String) -> [Header] {
        [Header(name: "Authorization", value: "Bearer \(credential)")]
    }

    /// `Authorization: Bearer credential`, for `LiveServer.request`.
    static func authorization(_ credential: String) -> [(String, String)] {
        [("Authorization", "Bearer \(credential)")]
    }
}

extension OverlayService {
    /// A test service (`testing`) with `Credential.admin` as its admin token, on `clock`.
    static func guarded(
        clock: MovableWallClock = MovableWallClock(), _ configure: (inout ServiceConfiguration) -> Void = { _ in }
    ) throws -> OverlayService {
        try testing(wallClock: clock) {
            $0.token = Credential.admin
            configure(&$0)
        }
    }

    /// `method path` as `credential` (a bearer token; nil: anonymous).
    func call(
        _ method: String, _ path: String, as credential: String? = nil, body: String = "", query: [QueryItem] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> HTTPResponse {
        answer(
            HTTPRequest(method, path, query: query, headers: credential.map(Credential.bearer) ?? [], body: body),
            sourceLocation: sourceLocation)
    }

    /// Makes a token as the admin; its secret and id.
    func makeToken(
        _ body: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (secret: String, id: String) {
        let response = call("POST", "/tokens", as: Credential.admin, body: body)
        #expect(
            response.status == 201, "\(String(decoding: response.body, as: UTF8.self))", sourceLocation: sourceLocation)
        let secret = try #require(response.json["secret"]?.string, sourceLocation: sourceLocation)
        let id = try #require(response.json["id"]?.string, sourceLocation: sourceLocation)
        return (secret, id)
    }
}

extension LiveServer {
    /// A server with `Credential.write` as its token, and `Credential.read` as its read token
    /// when `reads` is set.
    static func tokenGuarded(
        reads: Bool = false, configure: (inout ServiceConfiguration) -> Void = { _ in }
    ) throws -> LiveServer {
        try LiveServer {
            $0.token = Credential.write
            if reads { $0.readToken = Credential.read }
            configure(&$0)
        }
    }
}

/// Expects 401 with the challenge of RFC 6750: `invalid_token` when a credential was presented
/// and is not valid (never taken as anonymous), else `unauthorized`.
func expectUnauthorized(_ response: HTTPReply, wrongToken: Bool, sourceLocation: SourceLocation = #_sourceLocation) {
    expectError(
        response, status: 401, code: wrongToken ? "invalid_token" : "unauthorized", sourceLocation: sourceLocation)
    let challenge = wrongToken ? #"Bearer realm="overlayd", error="invalid_token""# : #"Bearer realm="overlayd""#
    #expect(response.header("WWW-Authenticate") == challenge, sourceLocation: sourceLocation)
}
