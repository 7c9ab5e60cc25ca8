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
    static let admin = "adm-0123456789-secret"
    static let reader = "rdr-0123456789-secret"

    /// A wall clock the test moves, in Unix seconds.
    final class WallClock: Sendable {
        let seconds = Atomic<Int64>(1_800_000_000)
        func advance(_ by: Int64) { seconds.add(by, ordering: .relaxed) }
    }

    static func service(
        clock: WallClock = WallClock(), _ configure: (inout ServiceConfiguration) -> Void = { _ in }
    ) throws -> OverlayService {
        var configuration = ServiceConfiguration()
        configuration.clock = .manual
        configuration.ephemeral = true
        configuration.token = admin
        configure(&configuration)
        return try OverlayService(configuration: configuration) { clock.seconds.load(ordering: .relaxed) }
    }

    static func bearer(_ credential: String) -> [Header] {
        [Header(name: "Authorization", value: "Bearer \(credential)")]
    }

    static func call(
        _ service: OverlayService, _ method: String, _ path: String, as credential: String? = nil,
        body: String = "", query: [QueryItem] = []
    ) -> HTTPResponse {
        service.answer(
            RouteTests.request(method, path, query: query, headers: credential.map(bearer) ?? [], body: body))
    }

    /// Makes a token as the admin; its secret and id.
    static func make(
        _ service: OverlayService, _ body: String, sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> (secret: String, id: String) {
        let response = call(service, "POST", "/tokens", as: admin, body: body)
        #expect(
            response.status == 201, "\(String(decoding: response.body, as: UTF8.self))", sourceLocation: sourceLocation)
        let json = RouteTests.json(response)
        let secret = try #require(json["secret"]?.string, sourceLocation: sourceLocation)
        let id = try #require(json["id"]?.string, sourceLocation: sourceLocation)
        return (secret, id)
    }

    static func code(_ response: HTTPResponse) -> String? { RouteTests.json(response)["error"]?["code"]?.string }

    /// A made token: its secret has the promised shape and is shown once; the list and the single
    /// read show the rest and the secret's first 8 characters, never the secret.
    @Test func madeTokenShownOnceAndListedWithoutItsSecret() throws {
        let service = try Self.service()
        let response = Self.call(
            service, "POST", "/tokens", as: Self.admin,
            body: #"{"label": "ci", "grants": [{"channels": "builds-*", "access": "write"}], "expires": "30d"}"#)
        #expect(response.status == 201)
        let json = RouteTests.json(response)
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
        let list = Self.call(service, "GET", "/tokens", as: Self.admin)
        let listed = try #require(RouteTests.json(list)["tokens"]?.array)
        #expect(listed.count == 1 && listed[0]["id"]?.string == id && listed[0]["secret"] == nil)
        #expect(!String(decoding: list.body, as: UTF8.self).contains(String(secret.dropFirst(8))))
        let one = RouteTests.json(Self.call(service, "GET", "/tokens/\(id)", as: Self.admin))
        #expect(one["label"]?.string == "ci" && one["secret"] == nil)
        #expect(one["grants"]?[0]?["channels"]?.string == "builds-*")
        #expect(Self.call(service, "GET", "/tokens/tok_nonexistent0", as: Self.admin).status == 404)
    }

    /// The CI token may write `builds-*` and nothing else; write alone receives the written state.
    @Test func grantsDecideEachChannel() throws {
        let service = try Self.service()
        let ci = try Self.make(service, #"{"label": "ci", "grants": [{"channels": "builds-*", "access": "write"}]}"#)
        #expect(Self.call(service, "POST", "/channels/builds-ios/messages", as: ci.secret, body: "go").status == 202)
        let elsewhere = Self.call(service, "POST", "/channels/deploys/messages", as: ci.secret, body: "no")
        #expect(elsewhere.status == 403 && Self.code(elsewhere) == "forbidden")
        #expect(
            elsewhere.headers.contains(
                Header(name: "WWW-Authenticate", value: #"Bearer realm="overlayd", error="insufficient_scope""#)))
        #expect(Self.call(service, "POST", "/messages", as: ci.secret, body: "default").status == 403)
        // Write alone does not read; a channel it may not read is 403 whether or not it exists.
        #expect(Self.call(service, "GET", "/channels/builds-ios/overlay", as: ci.secret).status == 403)
        #expect(Self.call(service, "GET", "/channels/builds-none/overlay", as: ci.secret).status == 403)
        #expect(Self.call(service, "GET", "/metrics", as: ci.secret).status == 403)
        #expect(Self.call(service, "POST", "/clock", as: ci.secret, body: "1").status == 403)
        #expect(Self.call(service, "GET", "/tokens", as: ci.secret).status == 403)
        // The lobby screen reads `lobby` alone, through every read route, and sees only it listed.
        let lobby = try Self.make(service, #"{"label": "lobby", "grants": [{"channels": "lobby", "access": "read"}]}"#)
        #expect(Self.call(service, "POST", "/channels/lobby/messages", as: Self.admin, body: "hi").status == 202)
        for path in [
            "/channels/lobby/overlay", "/channels/lobby/messages", "/channels/lobby/statusbar", "/channels/lobby",
        ] {
            #expect(Self.call(service, "GET", path, as: lobby.secret).status == 200, "\(path)")
        }
        #expect(
            Self.call(service, "GET", "/events", as: lobby.secret, query: [QueryItem(name: "channel", value: "ci")])
                .status == 403)
        #expect(Self.call(service, "POST", "/channels/lobby/messages", as: lobby.secret, body: "x").status == 403)
        let channels = RouteTests.json(Self.call(service, "GET", "/channels", as: lobby.secret))["channels"]?.array
        #expect(channels?.compactMap { $0["name"]?.string } == ["lobby"])
        let all = RouteTests.json(Self.call(service, "GET", "/channels", as: Self.admin))["channels"]?.array
        #expect(Set(all?.compactMap { $0["name"]?.string } ?? []) == ["builds-ios", "default", "lobby"])
    }

    /// `/metrics` and `GET /` need read on every channel: a deny anywhere takes it away.
    @Test func everyChannelRoutes() throws {
        let service = try Self.service()
        let most = try Self.make(
            service,
            #"{"label": "most", "grants": [{"channels": "*", "access": "read-write"}, {"channels": "secret", "access": "deny"}]}"#
        )
        #expect(Self.call(service, "GET", "/overlay", as: most.secret).status == 200)
        #expect(Self.call(service, "GET", "/channels/secret/overlay", as: most.secret).status == 403)
        #expect(Self.call(service, "GET", "/metrics", as: most.secret).status == 403)
        #expect(Self.call(service, "GET", "/", as: most.secret).status == 403)
        #expect(Self.call(service, "POST", "/clock", as: most.secret, body: "1").status == 403)
        let all = try Self.make(service, #"{"label": "all", "grants": [{"channels": "*", "access": "read-write"}]}"#)
        #expect(Self.call(service, "GET", "/metrics", as: all.secret).status == 200)
        #expect(Self.call(service, "POST", "/clock", as: all.secret, body: "1").status == 200)
        // Not an admin: no token management.
        #expect(Self.call(service, "GET", "/tokens", as: all.secret).status == 403)
    }

    /// A revoked token is refused at once (401 `invalid_token`, counted as `revoked`) and no
    /// longer listed; an expired one likewise (`expired`), on the wall clock.
    @Test func revokedAndExpiredTokens() throws {
        let clock = WallClock()
        let service = try Self.service(clock: clock)
        let grants = #""grants": [{"channels": "*", "access": "read"}]"#
        let revoked = try Self.make(service, #"{"label": "a", \#(grants)}"#)
        let expiring = try Self.make(service, #"{"label": "b", \#(grants), "expires": 60}"#)
        #expect(Self.call(service, "GET", "/overlay", as: revoked.secret).status == 200)
        #expect(Self.call(service, "DELETE", "/tokens/\(revoked.id)", as: Self.admin).status == 204)
        #expect(Self.call(service, "DELETE", "/tokens/\(revoked.id)", as: Self.admin).status == 404)
        let refused = Self.call(service, "GET", "/overlay", as: revoked.secret)
        #expect(refused.status == 401 && Self.code(refused) == "invalid_token")
        #expect(Self.call(service, "GET", "/tokens/\(revoked.id)", as: Self.admin).status == 404)
        clock.advance(59)
        #expect(Self.call(service, "GET", "/overlay", as: expiring.secret).status == 200)
        clock.advance(1)
        let expired = Self.call(service, "GET", "/overlay", as: expiring.secret)
        #expect(expired.status == 401 && Self.code(expired) == "invalid_token")
        #expect(RouteTests.json(Self.call(service, "GET", "/tokens", as: Self.admin))["tokens"]?.array?.count == 0)
        let metrics = String(decoding: Self.call(service, "GET", "/metrics", as: Self.admin).body, as: UTF8.self)
        #expect(metrics.contains(#"overlayd_auth_failures_total{reason="revoked"} 1"#))
        #expect(metrics.contains(#"overlayd_auth_failures_total{reason="expired"} 1"#))
    }

    /// `lastUsedAt` is the minute of the last use, on the wall clock.
    @Test func lastUseRoundedToTheMinute() throws {
        let clock = WallClock()
        let service = try Self.service(clock: clock)
        let token = try Self.make(service, #"{"label": "a", "grants": [{"channels": "*", "access": "read"}]}"#)
        clock.advance(125)
        #expect(Self.call(service, "GET", "/overlay", as: token.secret).status == 200)
        let listed = RouteTests.json(Self.call(service, "GET", "/tokens/\(token.id)", as: Self.admin))
        #expect(listed["lastUsedAt"]?.int == 1_800_000_120)
    }

    /// Every malformed credential is 401 `invalid_token`, also where anonymous could read, and
    /// its refusal quotes no secret.
    @Test(arguments: [
        "Bearer", "Bearer ", "Basic \(admin)", admin, "Bearer \(admin)x", "Bearer \(admin.dropLast())",
        "Bearer ovl_" + String(repeating: "A", count: 40), "Bearer ovl_short", "Bearer a.b.c", "Bearer !!!",
        "Bearer \(String(repeating: "x", count: 5000))",
    ])
    func malformedCredentials(header: String) throws {
        let service = try Self.service { $0.anonymousAccess = .readAll }
        #expect(Self.call(service, "GET", "/overlay").status == 200)
        let response = service.answer(
            RouteTests.request("GET", "/overlay", headers: [Header(name: "Authorization", value: header)]))
        #expect(response.status == 401 && Self.code(response) == "invalid_token")
        #expect(!String(decoding: response.body, as: UTF8.self).contains(Self.admin.prefix(8)))
        let whoami = service.answer(
            RouteTests.request("GET", "/whoami", headers: [Header(name: "Authorization", value: header)]))
        #expect(whoami.status == 401)
    }

    /// A token's secret one character off is unknown, whichever character.
    @Test func aSecretOneCharacterOff() throws {
        let service = try Self.service()
        let token = try Self.make(service, #"{"label": "a", "grants": [{"channels": "*", "access": "read"}]}"#)
        var bytes = Array(token.secret.utf8)
        for index in [4, 20, 43] {
            let original = bytes[index]
            bytes[index] = original == UInt8(ascii: "a") ? UInt8(ascii: "b") : UInt8(ascii: "a")
            #expect(Self.call(service, "GET", "/overlay", as: String(decoding: bytes, as: UTF8.self)).status == 401)
            bytes[index] = original
        }
        #expect(Self.call(service, "GET", "/overlay", as: token.secret).status == 200)
    }

    /// `/whoami` for each kind of principal, the grants written out in full.
    @Test func whoami() throws {
        let service = try Self.service { $0.readToken = Self.reader }
        let anonymous = RouteTests.json(Self.call(service, "GET", "/whoami"))
        #expect(anonymous["principal"]?.string == "anonymous" && anonymous["grants"]?.array?.count == 0)
        let admin = RouteTests.json(Self.call(service, "GET", "/whoami", as: Self.admin))
        #expect(admin["principal"]?.string == "token" && admin["admin"]?.bool == true)
        #expect(
            admin["grants"]?[0]?["channels"]?.string == "*" && admin["grants"]?[0]?["access"]?.string == "read-write")
        let reader = RouteTests.json(Self.call(service, "GET", "/whoami", as: Self.reader))
        #expect(reader["principal"]?.string == "readToken" && reader["grants"]?[0]?["access"]?.string == "read")
        let made = try Self.make(service, #"{"label": "kiosk", "grants": [{"channels": "lobby", "access": "read"}]}"#)
        let token = RouteTests.json(Self.call(service, "GET", "/whoami", as: made.secret))
        #expect(token["principal"]?.string == made.id && token["label"]?.string == "kiosk")
        let open = try RouteTests.service()
        let all = RouteTests.json(open.answer(RouteTests.request("GET", "/whoami")))
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
        let service = try Self.service {
            $0.anonymousAccess = Grants([Grant(ChannelPattern("lobby")!, .read)])
        }
        #expect(Self.call(service, "GET", "/channels/lobby/overlay").status == 200)
        let refused = Self.call(service, "GET", "/overlay")
        #expect(refused.status == 401 && Self.code(refused) == "unauthorized")
        #expect(Self.call(service, "POST", "/channels/lobby/messages", body: "x").status == 401)
    }

    /// A server with no credential of any kind ignores Authorization headers, as it always did.
    @Test func noCredentialsIgnoresTheHeader() throws {
        let service = try RouteTests.service()
        let response = service.answer(
            RouteTests.request("POST", "/messages", headers: Self.bearer("anything at all"), body: "hello"))
        #expect(response.status == 202)
        #expect(service.answer(RouteTests.request("GET", "/tokens")).status == 401)
    }

    /// `?auth=` carries a made token on reads.
    @Test func queryCredentialOnReads() throws {
        let service = try Self.service()
        let token = try Self.make(service, #"{"label": "a", "grants": [{"channels": "*", "access": "read"}]}"#)
        let query = [QueryItem(name: "auth", value: token.secret)]
        #expect(Self.call(service, "GET", "/overlay", query: query).status == 200)
        #expect(Self.call(service, "GET", "/overlay", query: [QueryItem(name: "auth", value: "ovl_x")]).status == 401)
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
        let service = try Self.service()
        let response = Self.call(service, "POST", "/tokens", as: Self.admin, body: body)
        #expect(response.status == status, "\(String(decoding: response.body, as: UTF8.self))")
        #expect(RouteTests.json(response)["error"]?["field"]?.string == field)
        #expect(RouteTests.json(Self.call(service, "GET", "/tokens", as: Self.admin))["tokens"]?.array?.count == 0)
    }

    /// Past `limits.maxTokens` live tokens: 503 `too_many_tokens`; a revocation makes room.
    @Test func tokenLimit() throws {
        let service = try Self.service { $0.maxTokens = 2 }
        let body = #"{"label": "a", "grants": [{"channels": "*", "access": "read"}]}"#
        let first = try Self.make(service, body)
        _ = try Self.make(service, body)
        let refused = Self.call(service, "POST", "/tokens", as: Self.admin, body: body)
        #expect(refused.status == 503 && Self.code(refused) == "too_many_tokens")
        #expect(Self.call(service, "DELETE", "/tokens/\(first.id)", as: Self.admin).status == 204)
        _ = try Self.make(service, body)
    }

    /// Admins making tokens at once on a durable server: exactly the limit's worth are made.
    @Test func tokenLimitHoldsUnderConcurrency() throws {
        let directory = try TemporaryDirectory()
        let service = try Self.service {
            $0.maxTokens = 5
            $0.ephemeral = false
            $0.dataDirectory = directory.path
        }
        defer { service.shutdown() }
        let made = Atomic(0)
        onThreads(12) { _ in
            let body = #"{"label": "a", "grants": [{"channels": "*", "access": "read"}]}"#
            if Self.call(service, "POST", "/tokens", as: Self.admin, body: body).status == 201 {
                made.add(1, ordering: .relaxed)
            }
        }
        #expect(made.load(ordering: .relaxed) == 5)
        #expect(RouteTests.json(Self.call(service, "GET", "/tokens", as: Self.admin))["tokens"]?.array?.count == 5)
    }

    /// `access.tokens: false` turns the token API off: 404, even for the admin.
    @Test func tokenAPIOff() throws {
        let service = try Self.service { $0.tokensEnabled = false }
        #expect(Self.call(service, "GET", "/tokens", as: Self.admin).status == 404)
        #expect(Self.call(service, "POST", "/tokens", as: Self.admin, body: "{}").status == 404)
    }

    /// Made tokens outlive a restart on the same data directory; a revoked one stays revoked.
    @Test func tokensAreDurable() throws {
        let directory = try TemporaryDirectory()
        let body = #"{"label": "kept", "grants": [{"channels": "*", "access": "read"}]}"#
        var kept: (secret: String, id: String)
        var revoked: (secret: String, id: String)
        do {
            let service = try Self.service {
                $0.ephemeral = false
                $0.dataDirectory = directory.path
            }
            kept = try Self.make(service, body)
            revoked = try Self.make(service, body)
            #expect(Self.call(service, "DELETE", "/tokens/\(revoked.id)", as: Self.admin).status == 204)
            service.shutdown()
        }
        let again = try Self.service {
            $0.ephemeral = false
            $0.dataDirectory = directory.path
        }
        defer { again.shutdown() }
        #expect(Self.call(again, "GET", "/overlay", as: kept.secret).status == 200)
        #expect(Self.call(again, "GET", "/overlay", as: revoked.secret).status == 401)
        let listed = RouteTests.json(Self.call(again, "GET", "/tokens", as: Self.admin))["tokens"]?.array
        #expect(listed?.compactMap { $0["id"]?.string } == [kept.id])
        // Only the secret's hash is on disk.
        let file = Files.read(directory.database).map { String(decoding: $0, as: UTF8.self) } ?? ""
        let wal = Files.read(directory.database + "-wal").map { String(decoding: $0, as: UTF8.self) } ?? ""
        #expect(!(file + wal).contains(String(kept.secret.dropFirst(8))))
    }
}
