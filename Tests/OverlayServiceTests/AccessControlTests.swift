import MicroHTTP
import ServiceTestSupport
import Synchronization
import TestSupport
import Testing

@testable import OverlayService

/// Access control through the real dispatcher (docs/ACCESS.md): tokens made, used, listed,
/// revoked and expired on a wall clock the test moves; grants deciding every route; malformed
/// credentials refused, never taken as anonymous.
@Suite("Access control")
struct AccessControlTests {
    /// A made token: its secret has the promised shape and is shown once; the list and the single
    /// read show the rest and the secret's first 8 characters, never the secret.
    @Test func madeTokenShownOnceAndListedWithoutItsSecret() throws {
        let service = try OverlayService.guarded()
        let response = service.call(
            "POST", "/tokens", as: Credential.admin,
            body: #"{"label": "ci", "grants": [{"channels": "builds-*", "access": "write"}], "expires": "30d"}"#)
        #expect(response.status == 201)
        let json = response.json
        let secret = try #require(json["secret"]?.string)
        let id = try #require(json["id"]?.string)
        #expect(secret.hasPrefix("ovl_") && secret.utf8.count == 44)
        #expect(secret.dropFirst(4).allSatisfy { $0.isASCII && ($0.isLetter || $0.isNumber) })
        #expect(id.hasPrefix("tok_") && id.utf8.count == 16)
        #expect(response.headers.contains(Header(name: "Location", value: "/tokens/\(id)")))
        #expect(json["expiresAt"]?.int == 1_800_000_000 + 30 * 86_400)
        #expect(json["createdAt"]?.int == 1_800_000_000)
        #expect(json["lastUsedAt"]?.isNull == true)
        #expect(json["admin"]?.bool == false)
        #expect(json["prefix"]?.string == String(secret.prefix(8)))
        let list = service.call("GET", "/tokens", as: Credential.admin)
        let listed = try #require(list.json["tokens"]?.array)
        #expect(listed.count == 1 && listed[0]["id"]?.string == id && listed[0]["secret"] == nil)
        #expect(!String(decoding: list.body, as: UTF8.self).contains(String(secret.dropFirst(8))))
        let one = service.call("GET", "/tokens/\(id)", as: Credential.admin).json
        #expect(one["label"]?.string == "ci" && one["secret"] == nil)
        #expect(one["grants"]?[0]?["channels"]?.string == "builds-*")
        #expect(service.call("GET", "/tokens/tok_nonexistent0", as: Credential.admin).status == 404)
    }

    /// The CI token may write `builds-*` and nothing else; write alone receives the written state.
    @Test func grantsDecideEachChannel() throws {
        let service = try OverlayService.guarded()
        let ci = try service.makeToken(#"{"label": "ci", "grants": [{"channels": "builds-*", "access": "write"}]}"#)
        #expect(service.call("POST", "/channels/builds-ios/messages", as: ci.secret, body: "go").status == 202)
        let elsewhere = service.call("POST", "/channels/deploys/messages", as: ci.secret, body: "no")
        #expect(elsewhere.status == 403 && elsewhere.errorCode == "forbidden")
        #expect(
            elsewhere.headers.contains(
                Header(name: "WWW-Authenticate", value: #"Bearer realm="overlayd", error="insufficient_scope""#)))
        #expect(service.call("POST", "/messages", as: ci.secret, body: "default").status == 403)
        // Write alone does not read; a channel it may not read is 403 whether or not it exists.
        #expect(service.call("GET", "/channels/builds-ios/overlay", as: ci.secret).status == 403)
        #expect(service.call("GET", "/channels/builds-none/overlay", as: ci.secret).status == 403)
        #expect(service.call("GET", "/metrics", as: ci.secret).status == 403)
        #expect(service.call("POST", "/clock", as: ci.secret, body: "1").status == 403)
        #expect(service.call("GET", "/tokens", as: ci.secret).status == 403)
        // The lobby screen reads `lobby` alone, through every read route, and sees only it listed.
        let lobby = try service.makeToken(#"{"label": "lobby", "grants": [{"channels": "lobby", "access": "read"}]}"#)
        #expect(service.call("POST", "/channels/lobby/messages", as: Credential.admin, body: "hi").status == 202)
        for path in [
            "/channels/lobby/overlay", "/channels/lobby/messages", "/channels/lobby/statusbar", "/channels/lobby",
        ] {
            #expect(service.call("GET", path, as: lobby.secret).status == 200, "\(path)")
        }
        #expect(
            service.call("GET", "/events", as: lobby.secret, query: [QueryItem(name: "channel", value: "ci")])
                .status == 403)
        #expect(service.call("POST", "/channels/lobby/messages", as: lobby.secret, body: "x").status == 403)
        let channels = service.call("GET", "/channels", as: lobby.secret).json["channels"]?.array
        #expect(channels?.compactMap { $0["name"]?.string } == ["lobby"])
        let all = service.call("GET", "/channels", as: Credential.admin).json["channels"]?.array
        #expect(Set(all?.compactMap { $0["name"]?.string } ?? []) == ["builds-ios", "default", "lobby"])
    }

    /// `/metrics` and `GET /` need read on every channel: a deny anywhere takes it away.
    @Test func everyChannelRoutes() throws {
        let service = try OverlayService.guarded()
        let most = try service.makeToken(
            #"{"label": "most", "grants": [{"channels": "*", "access": "read-write"}, {"channels": "secret", "access": "deny"}]}"#
        )
        #expect(service.call("GET", "/overlay", as: most.secret).status == 200)
        #expect(service.call("GET", "/channels/secret/overlay", as: most.secret).status == 403)
        #expect(service.call("GET", "/metrics", as: most.secret).status == 403)
        #expect(service.call("GET", "/", as: most.secret).status == 403)
        #expect(service.call("POST", "/clock", as: most.secret, body: "1").status == 403)
        let all = try service.makeToken(#"{"label": "all", "grants": [{"channels": "*", "access": "read-write"}]}"#)
        #expect(service.call("GET", "/metrics", as: all.secret).status == 200)
        #expect(service.call("POST", "/clock", as: all.secret, body: "1").status == 200)
        // Not an admin: no token management.
        #expect(service.call("GET", "/tokens", as: all.secret).status == 403)
    }

    /// A revoked token is refused at once (401 `invalid_token`, counted as `revoked`) and no
    /// longer listed; an expired one likewise (`expired`), on the wall clock.
    @Test func revokedAndExpiredTokens() throws {
        let clock = MovableWallClock()
        let service = try OverlayService.guarded(clock: clock)
        let grants = #""grants": [{"channels": "*", "access": "read"}]"#
        let revoked = try service.makeToken(#"{"label": "a", \#(grants)}"#)
        let expiring = try service.makeToken(#"{"label": "b", \#(grants), "expires": 60}"#)
        #expect(service.call("GET", "/overlay", as: revoked.secret).status == 200)
        #expect(service.call("DELETE", "/tokens/\(revoked.id)", as: Credential.admin).status == 204)
        #expect(service.call("DELETE", "/tokens/\(revoked.id)", as: Credential.admin).status == 404)
        let refused = service.call("GET", "/overlay", as: revoked.secret)
        #expect(refused.status == 401 && refused.errorCode == "invalid_token")
        #expect(service.call("GET", "/tokens/\(revoked.id)", as: Credential.admin).status == 404)
        clock.advance(59)
        #expect(service.call("GET", "/overlay", as: expiring.secret).status == 200)
        clock.advance(1)
        let expired = service.call("GET", "/overlay", as: expiring.secret)
        #expect(expired.status == 401 && expired.errorCode == "invalid_token")
        #expect(service.call("GET", "/tokens", as: Credential.admin).json["tokens"]?.array?.count == 0)
        let metrics = String(decoding: service.call("GET", "/metrics", as: Credential.admin).body, as: UTF8.self)
        #expect(metrics.contains(#"overlayd_auth_failures_total{reason="revoked"} 1"#))
        #expect(metrics.contains(#"overlayd_auth_failures_total{reason="expired"} 1"#))
    }

    /// `lastUsedAt` is the minute of the last use, on the wall clock.
    @Test func lastUseRoundedToTheMinute() throws {
        let clock = MovableWallClock()
        let service = try OverlayService.guarded(clock: clock)
        let token = try service.makeToken(#"{"label": "a", "grants": [{"channels": "*", "access": "read"}]}"#)
        clock.advance(125)
        #expect(service.call("GET", "/overlay", as: token.secret).status == 200)
        let listed = service.call("GET", "/tokens/\(token.id)", as: Credential.admin).json
        #expect(listed["lastUsedAt"]?.int == 1_800_000_120)
    }

    /// Every malformed credential is 401 `invalid_token`, also where anonymous could read, and
    /// its refusal quotes no secret.
    @Test(arguments: [
        "Bearer", "Bearer ", "Basic \(Credential.admin)", Credential.admin, "Bearer \(Credential.admin)x",
        "Bearer \(Credential.admin.dropLast())",
        "Bearer ovl_" + String(repeating: "A", count: 40), "Bearer ovl_short", "Bearer a.b.c", "Bearer !!!",
        "Bearer \(String(repeating: "x", count: 5000))",
    ])
    func malformedCredentials(header: String) throws {
        let service = try OverlayService.guarded { $0.anonymousAccess = .readAll }
        #expect(service.call("GET", "/overlay").status == 200)
        let response = service.answer(
            HTTPRequest("GET", "/overlay", headers: [Header(name: "Authorization", value: header)]))
        #expect(response.status == 401 && response.errorCode == "invalid_token")
        #expect(!String(decoding: response.body, as: UTF8.self).contains(Credential.admin.prefix(8)))
        let whoami = service.answer(
            HTTPRequest("GET", "/whoami", headers: [Header(name: "Authorization", value: header)]))
        #expect(whoami.status == 401)
    }

    /// A token's secret one character off is unknown, whichever character.
    @Test func aSecretOneCharacterOff() throws {
        let service = try OverlayService.guarded()
        let token = try service.makeToken(#"{"label": "a", "grants": [{"channels": "*", "access": "read"}]}"#)
        var bytes = Array(token.secret.utf8)
        for index in [4, 20, 43] {
            let original = bytes[index]
            bytes[index] = original == UInt8(ascii: "a") ? UInt8(ascii: "b") : UInt8(ascii: "a")
            #expect(service.call("GET", "/overlay", as: String(decoding: bytes, as: UTF8.self)).status == 401)
            bytes[index] = original
        }
        #expect(service.call("GET", "/overlay", as: token.secret).status == 200)
    }

    /// `/whoami` for each kind of principal, the grants written out in full.
    @Test func whoami() throws {
        let service = try OverlayService.guarded { $0.readToken = Credential.reader }
        let anonymous = service.call("GET", "/whoami").json
        #expect(anonymous["principal"]?.string == "anonymous" && anonymous["grants"]?.array?.count == 0)
        let admin = service.call("GET", "/whoami", as: Credential.admin).json
        #expect(admin["principal"]?.string == "token" && admin["admin"]?.bool == true)
        #expect(
            admin["grants"]?[0]?["channels"]?.string == "*" && admin["grants"]?[0]?["access"]?.string == "read-write")
        let reader = service.call("GET", "/whoami", as: Credential.reader).json
        #expect(reader["principal"]?.string == "readToken" && reader["grants"]?[0]?["access"]?.string == "read")
        let made = try service.makeToken(#"{"label": "kiosk", "grants": [{"channels": "lobby", "access": "read"}]}"#)
        let token = service.call("GET", "/whoami", as: made.secret).json
        #expect(token["principal"]?.string == made.id && token["label"]?.string == "kiosk")
        let open = try OverlayService.testing()
        let all = open.answer(HTTPRequest("GET", "/whoami")).json
        #expect(all["grants"]?[0]?["access"]?.string == "read-write")
    }

    /// Anonymous's default keeps each older setup's behaviour; `access.anonymous` replaces it.
    @Test func anonymousGrants() throws {
        var configuration = ServiceConfiguration()
        #expect(configuration.anonymousGrants == .readWriteAll)
        configuration.token = "t"
        #expect(configuration.anonymousGrants == .readAll)
        configuration.readToken = "r"
        #expect(configuration.anonymousGrants == .none)
        configuration.token = nil
        #expect(configuration.anonymousGrants == .writeAll)
        let service = try OverlayService.guarded {
            $0.anonymousAccess = Grants([Grant(ChannelPattern("lobby")!, .read)])
        }
        #expect(service.call("GET", "/channels/lobby/overlay").status == 200)
        let refused = service.call("GET", "/overlay")
        #expect(refused.status == 401 && refused.errorCode == "unauthorized")
        #expect(service.call("POST", "/channels/lobby/messages", body: "x").status == 401)
    }

    /// A server with no credential of any kind ignores Authorization headers, as it always did.
    @Test func noCredentialsIgnoresTheHeader() throws {
        let service = try OverlayService.testing()
        let response = service.answer(
            HTTPRequest("POST", "/messages", headers: Credential.bearer("anything at all"), body: "hello"))
        #expect(response.status == 202)
        #expect(service.answer(HTTPRequest("GET", "/tokens")).status == 401)
    }

    /// `?auth=` carries a made token on reads.
    @Test func queryCredentialOnReads() throws {
        let service = try OverlayService.guarded()
        let token = try service.makeToken(#"{"label": "a", "grants": [{"channels": "*", "access": "read"}]}"#)
        let query = [QueryItem(name: "auth", value: token.secret)]
        #expect(service.call("GET", "/overlay", query: query).status == 200)
        #expect(service.call("GET", "/overlay", query: [QueryItem(name: "auth", value: "ovl_x")]).status == 401)
    }

    /// Bad token bodies are refused naming the field, and make nothing.
    @Test(arguments: [
        (#"{"grants": [{"channels": "*", "access": "read"}]}"#, 422, "label"),
        (#"{"label": "", "grants": [{"channels": "*", "access": "read"}]}"#, 422, "label"),
        (
            #"{"label": "\#(String(repeating: "l", count: 65))", "grants": [{"channels": "*", "access": "read"}]}"#,
            422, "label"
        ),
        (#"{"label": "a\u0007", "grants": [{"channels": "*", "access": "read"}]}"#, 422, "label"),
        (#"{"label": "a"}"#, 422, "grants"),
        (#"{"label": "a", "grants": []}"#, 422, "grants"),
        (#"{"label": "a", "grants": {}}"#, 422, "grants"),
        (
            #"{"label": "a", "grants": [{"channels": "*", "access": "read"}, {"channels": "a/b", "access": "read"}]}"#,
            422, "grants[1].channels"
        ),
        (#"{"label": "a", "grants": [{"channels": "*", "access": "admin"}]}"#, 422, "grants[0].access"),
        (#"{"label": "a", "grants": [{"channels": "*", "access": "read", "x": 1}]}"#, 422, "grants[0].x"),
        (#"{"label": "a", "grants": ["*"]}"#, 422, "grants[0]"),
        (#"{"label": "a", "grants": [{"channels": "*", "access": "read"}], "admin": "yes"}"#, 422, "admin"),
        (#"{"label": "a", "grants": [{"channels": "*", "access": "read"}], "expires": 0}"#, 422, "expires"),
        (#"{"label": "a", "grants": [{"channels": "*", "access": "read"}], "expires": "3651d"}"#, 422, "expires"),
        (#"{"label": "a", "grants": [{"channels": "*", "access": "read"}], "expires": "soon"}"#, 422, "expires"),
        (
            #"{"label": "a", "grants": [{"channels": "*", "access": "read"}], "expiresAt": 1800000000}"#, 422,
            "expiresAt"
        ),
        (
            #"{"label": "a", "grants": [{"channels": "*", "access": "read"}], "expiresAt": 2200000000}"#, 422,
            "expiresAt"
        ),
        (
            #"{"label": "a", "grants": [{"channels": "*", "access": "read"}], "expires": 5, "expiresAt": 1800000100}"#,
            400, "expiresAt"
        ),
        (#"{"label": "a", "grants": [{"channels": "*", "access": "read"}], "secret": "ovl_mine"}"#, 422, "secret"),
    ])
    func badTokenBodies(body: String, status: Int, field: String) throws {
        let service = try OverlayService.guarded()
        let response = service.call("POST", "/tokens", as: Credential.admin, body: body)
        #expect(response.status == status, "\(String(decoding: response.body, as: UTF8.self))")
        #expect(response.json["error"]?["field"]?.string == field)
        #expect(service.call("GET", "/tokens", as: Credential.admin).json["tokens"]?.array?.count == 0)
    }

    /// Past `limits.maxTokens` live tokens: 503 `too_many_tokens`; a revocation makes room.
    @Test func tokenLimit() throws {
        let service = try OverlayService.guarded { $0.maxTokens = 2 }
        let body = #"{"label": "a", "grants": [{"channels": "*", "access": "read"}]}"#
        let first = try service.makeToken(body)
        _ = try service.makeToken(body)
        let refused = service.call("POST", "/tokens", as: Credential.admin, body: body)
        #expect(refused.status == 503 && refused.errorCode == "too_many_tokens")
        #expect(service.call("DELETE", "/tokens/\(first.id)", as: Credential.admin).status == 204)
        _ = try service.makeToken(body)
    }

    /// Admins making tokens at once on a durable server: exactly the limit's worth are made.
    @Test func tokenLimitHoldsUnderConcurrency() throws {
        let directory = try TemporaryDirectory()
        let service = try OverlayService.guarded {
            $0.maxTokens = 5
            $0.store(in: directory)
        }
        defer { service.shutdown() }
        let made = Atomic(0)
        onThreads(12) { _ in
            let body = #"{"label": "a", "grants": [{"channels": "*", "access": "read"}]}"#
            if service.call("POST", "/tokens", as: Credential.admin, body: body).status == 201 {
                made.add(1, ordering: .relaxed)
            }
        }
        #expect(made.load(ordering: .relaxed) == 5)
        #expect(service.call("GET", "/tokens", as: Credential.admin).json["tokens"]?.array?.count == 5)
    }

    /// `access.tokens: false` turns the token API off: 404, even for the admin.
    @Test func tokenAPIOff() throws {
        let service = try OverlayService.guarded { $0.tokensEnabled = false }
        #expect(service.call("GET", "/tokens", as: Credential.admin).status == 404)
        #expect(service.call("POST", "/tokens", as: Credential.admin, body: "{}").status == 404)
    }

    /// Made tokens outlive a restart on the same data directory; a revoked one stays revoked.
    @Test func tokensAreDurable() throws {
        let directory = try TemporaryDirectory()
        let body = #"{"label": "kept", "grants": [{"channels": "*", "access": "read"}]}"#
        var kept: (secret: String, id: String)
        var revoked: (secret: String, id: String)
        do {
            let service = try OverlayService.guarded {
                $0.store(in: directory)
            }
            kept = try service.makeToken(body)
            revoked = try service.makeToken(body)
            #expect(service.call("DELETE", "/tokens/\(revoked.id)", as: Credential.admin).status == 204)
            service.shutdown()
        }
        let again = try OverlayService.guarded {
            $0.store(in: directory)
        }
        defer { again.shutdown() }
        #expect(again.call("GET", "/overlay", as: kept.secret).status == 200)
        #expect(again.call("GET", "/overlay", as: revoked.secret).status == 401)
        let listed = again.call("GET", "/tokens", as: Credential.admin).json["tokens"]?.array
        #expect(listed?.compactMap { $0["id"]?.string } == [kept.id])
        // Only the secret's hash is on disk.
        let file = Files.read(directory.database).map { String(decoding: $0, as: UTF8.self) } ?? ""
        let wal = Files.read(directory.database + "-wal").map { String(decoding: $0, as: UTF8.self) } ?? ""
        #expect(!(file + wal).contains(String(kept.secret.dropFirst(8))))
    }
}
