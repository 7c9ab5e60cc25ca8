import MicroHTTP
import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// The edges of access control a hostile client or a race could reach: the channel `/events/`
/// names, `?auth=` on writes, what counts as a write, the token API switched off, and a reader
/// held with a token revoked while its request was on the way.
@Suite("Access control edges")
struct AccessEdgeTests {
    /// `/events/?channel=` is the read of that channel, as `/events?channel=` is: the trailing
    /// slash (the same route) must not check `default` while the handler streams another.
    @Test(arguments: ["/events", "/events/"])
    func eventsChannelIsWhatTheHandlerReads(path: String) throws {
        let service = try OverlayService.guarded {
            $0.anonymousAccess = Grants([Grant(ChannelPattern("default")!, .read)])
        }
        #expect(
            service.call("POST", "/channels/secret/messages", as: Credential.admin, body: "x").status
                == 202)
        for method in ["GET", "HEAD"] {
            let response = service.answer(
                HTTPRequest(method, path, query: [QueryItem(name: "channel", value: "secret")]))
            #expect(response.status == 401, "\(method) \(path)?channel=secret")
        }
    }

    /// `?auth=` on a write is 400 naming it, with an Authorization header or without.
    @Test func queryCredentialOnAWriteIsRefused() throws {
        let service = try OverlayService.guarded()
        let response = service.answer(
            HTTPRequest(
                "DELETE", "/messages/1", query: [QueryItem(name: "auth", value: Credential.admin)],
                headers: Credential.bearer(Credential.admin)))
        #expect(response.status == 400 && response.json["error"]?["field"]?.string == "auth")
    }

    /// An admin's GETs are reads: they take `?auth=` and spend no write rate.
    @Test func adminReadsAreReads() throws {
        let service = try OverlayService.guarded {
            $0.writesPerSecond = 0.001
            $0.writeBurst = 1
        }
        let query = [QueryItem(name: "auth", value: Credential.admin)]
        for _ in 0..<5 {
            #expect(service.call("GET", "/tokens", query: query).status == 200)
        }
        #expect(service.call("POST", "/messages", as: Credential.admin, body: "one").status == 202)
        #expect(service.call("POST", "/messages", as: Credential.admin, body: "two").status == 429)
    }

    /// `access.tokens: false`: the token API is not there, for anyone.
    @Test func tokenAPIOffIsNotFoundForEveryone() throws {
        let service = try OverlayService.guarded { $0.tokensEnabled = false }
        for credential in [nil, "wrong", Credential.admin] {
            #expect(service.call("GET", "/tokens", as: credential).status == 404)
            #expect(service.call("DELETE", "/tokens/tok_abc", as: credential).status == 404)
        }
    }

    /// `"expires": null` is no value: with `expiresAt` it is not "both".
    @Test func nullExpiryIsAbsent() throws {
        let service = try OverlayService.guarded()
        let made = service.call(
            "POST", "/tokens", as: Credential.admin,
            body:
                #"{"label": "a", "grants": [{"channels": "*", "access": "read"}], "expires": null, "expiresAt": 1800000100}"#
        )
        #expect(made.status == 201 && made.json["expiresAt"]?.int == 1_800_000_100)
    }

    /// A reader whose token was revoked after its request was let in, but before it was listed
    /// among the readers to end, is ended as it is listed.
    @Test func revokedBeforeTheHoldIsEndedAtOnce() throws {
        let service = try OverlayService.guarded()
        let token = try service.makeToken(#"{"label": "a", "grants": [{"channels": "*", "access": "read"}]}"#)
        let principal = try service.guardian.principal(for: Array(token.secret.utf8))
        #expect(service.call("DELETE", "/tokens/\(token.id)", as: Credential.admin).status == 204)
        let answer = DetachedAnswer.handle(HTTPRequest("GET", "/overlay")) { _, responder in
            service.held.hold(.poll(responder), by: principal, lasts: 60)
        }
        let response = try #require(answer.response(waiting: 10))
        #expect(response.status == 401 && response.json["error"]?["code"]?.string == "invalid_token")
    }

    /// A refusal of a valid credential's access is logged under its principal.
    @Test func forbiddenIsLoggedUnderThePrincipal() throws {
        let service = try OverlayService.guarded()
        let token = try service.makeToken(#"{"label": "a", "grants": [{"channels": "lobby", "access": "read"}]}"#)
        var named: String?
        _ = try? service.guardian.check(
            HTTPRequest("GET", "/overlay", headers: Credential.bearer(token.secret)), .read,
            channel: "default", resolved: { named = $0.logName })
        #expect(named == token.id)
    }
}
