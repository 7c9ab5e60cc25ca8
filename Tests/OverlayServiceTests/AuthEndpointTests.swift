import MicroHTTP
import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// `GET /auth`, nginx's question before nchan takes a subscriber, through the real dispatcher:
/// the channel from `X-Overlayd-Channel` or `X-Original-URI`, the credential from the header or
/// the URI's `auth`, and the API's own refusals.
@Suite("GET /auth")
struct AuthEndpointTests {
    static func ask(_ service: OverlayService, _ headers: [(String, String)]) -> HTTPResponse {
        service.answer(HTTPRequest("GET", "/auth", headers: headers.map { Header(name: $0.0, value: $0.1) }))
    }

    /// The channel a URI addresses, as the API reads it.
    @Test(arguments: [
        ("/channels/lobby/events", "lobby"), ("/channels/lobby/subscribe?x=1", "lobby"),
        ("/channels/a.b_c-d/", "a.b_c-d"),
        ("/events?channel=lobby", "lobby"), ("/events", "default"), ("/subscribe", "default"), ("/", "default"),
        ("/overlay?wait=30", "default"), ("/channels/l%6Fbby/events", "lobby"),
    ])
    func channels(uri: String, channel: String) throws {
        #expect(try AuthHandlers.channel(ofURI: Array(uri.utf8)) == channel)
    }

    /// A URI with a dot segment or an encoded slash is 400: nginx and overlayd could read it apart.
    @Test(arguments: [
        "/channels/../events", "/channels/lobby/../secret/events", "/channels/a%2Fb/events", "/channels/a%2fb/events",
        "/channels/%2E%2E/events", "/channels/./events", "/events?channel=a/b",
        "/channels/" + String(repeating: "x", count: 65) + "/events",
        "/channels/a%5Cb/events",
    ])
    func refusedURIs(uri: String) {
        #expect(throws: APIError.self) { try AuthHandlers.channel(ofURI: Array(uri.utf8)) }
    }

    @Test func grantsDecide() throws {
        let service = try OverlayService.guarded()
        let lobby = try service.makeToken(#"{"label": "lobby", "grants": [{"channels": "lobby", "access": "read"}]}"#)
        let bearer = ("Authorization", "Bearer \(lobby.secret)")
        #expect(Self.ask(service, [bearer, ("X-Overlayd-Channel", "lobby")]).status == 204)
        #expect(Self.ask(service, [bearer, ("X-Original-URI", "/channels/lobby/events")]).status == 204)
        // The channel header wins over the URI.
        #expect(
            Self.ask(service, [bearer, ("X-Overlayd-Channel", "ops"), ("X-Original-URI", "/channels/lobby/events")])
                .status == 403)
        let forbidden = Self.ask(service, [bearer, ("X-Original-URI", "/channels/ops/events")])
        #expect(forbidden.status == 403 && forbidden.json["error"]?["code"]?.string == "forbidden")
        // EventSource's credential, in the URI it asked for.
        #expect(Self.ask(service, [("X-Original-URI", "/channels/lobby/events?auth=\(lobby.secret)")]).status == 204)
        let wrong = Self.ask(service, [("X-Original-URI", "/channels/lobby/events?auth=ovl_nope")])
        #expect(wrong.status == 401 && wrong.json["error"]?["code"]?.string == "invalid_token")
        // Anonymous may read here (token only set): without a credential, 204.
        #expect(Self.ask(service, [("X-Original-URI", "/channels/lobby/events")]).status == 204)
        let closed = try OverlayService.guarded { $0.anonymousAccess = Grants.none }
        let missing = Self.ask(closed, [("X-Original-URI", "/channels/lobby/events")])
        #expect(missing.status == 401 && missing.json["error"]?["code"]?.string == "unauthorized")
        #expect(Self.ask(closed, [("X-Overlayd-Channel", "a/b")]).status == 400)
        #expect(Self.ask(closed, [("X-Original-URI", "/channels/../x")]).status == 400)
    }
}
