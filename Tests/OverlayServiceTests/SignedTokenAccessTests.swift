import Crypto
import MicroHTTP
import ServiceTestSupport
import SignedToken
import TestSupport
import Testing

@testable import OverlayService

/// Signed tokens (JWT) through the real dispatcher: the claims' checks on a wall clock the test
/// sets, the grants of the `overlayd` claim, and every way a token can be wrong (docs/ACCESS.md).
/// HS256 tokens are made here with libcrypto's HMAC, independently of libjwt, which verifies them;
/// the RS256 and ES256 ones are PyJWT's (scripts/jwt-fixtures).
@Suite("Signed tokens")
struct SignedTokenAccessTests {
    static let secret = "a-secret-of-at-least-thirty-two-bytes-for-hs256"
    static let now: Int64 = 1_800_000_000

    static func service(
        issuer: String? = "https://api.example", audience: String? = "overlayd",
        _ configure: (inout ServiceConfiguration) -> Void = { _ in }
    ) throws -> OverlayService {
        try OverlayService.testing(wallClock: MovableWallClock(at: Self.now)) {
            $0.jwt = SignedTokenSettings(algorithm: .hs256, key: Array(secret.utf8), issuer: issuer, audience: audience)
            configure(&$0)
        }
    }

    static func base64URL(_ bytes: [UInt8]) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        var text: [UInt8] = []
        var index = 0
        while index < bytes.count {
            let chunk = bytes[index..<min(index + 3, bytes.count)]
            let value = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (16 - 8 * UInt32($1.offset)) }
            for position in 0..<(chunk.count + 1) {
                text.append(alphabet[Int(value >> (18 - 6 * UInt32(position)) & 63)])
            }
            index += 3
        }
        return String(decoding: text, as: UTF8.self)
    }

    /// A compact JWT of `claims`, signed with HMAC-SHA256 under `key`.
    static func mint(_ claims: String, header: String = #"{"alg":"HS256","typ":"JWT"}"#, key: String = secret) -> String
    {
        let signingInput = base64URL(Array(header.utf8)) + "." + base64URL(Array(claims.utf8))
        return signingInput + "." + base64URL(HMAC.sha256(key: Array(key.utf8), message: Array(signingInput.utf8)))
    }

    static let good = #""iss":"https://api.example","aud":"overlayd","sub":"user-42""#
    static let grants = #""overlayd":{"read":["user-42","news"],"write":["user-42"]}"#

    static func status(
        _ service: OverlayService, _ token: String, _ method: String = "GET",
        _ path: String = "/channels/user-42/overlay"
    ) -> (Int, String?) {
        let response = service.answer(
            HTTPRequest(
                method, path, headers: [Header(name: "Authorization", value: "Bearer \(token)")],
                body: method == "POST" ? "hi" : ""))
        return (response.status, response.json["error"]?["code"]?.string)
    }

    /// The table of claims and what a read of `user-42` gets with them.
    @Test(arguments: [
        ("{\(good),\(grants),\"exp\":\(now + 60)}", 200),
        ("{\(good),\(grants),\"exp\":\(now + 60),\"nbf\":\(now)}", 200),
        ("{\"iss\":\"https://api.example\",\"aud\":[\"other\",\"overlayd\"],\(grants),\"exp\":\(now + 60)}", 200),
        // A claim named twice is read differently by different parsers: refused.
        ("{\(good),\(grants),\"exp\":\(now + 60),\"aud\":[\"other\",\"overlayd\"]}", 401),
        // No overlayd claim: no grant.
        ("{\(good),\"exp\":\(now + 60)}", 403),
        ("{\(good),\"overlayd\":{\"read\":[\"news\"]},\"exp\":\(now + 60)}", 403),
        ("{\(good),\"overlayd\":{\"read\":[\"*\"],\"deny\":[\"user-*\"]},\"exp\":\(now + 60)}", 403),
        // exp required, an integer, and in the future (no leeway).
        ("{\(good),\(grants)}", 401),
        ("{\(good),\(grants),\"exp\":\"\(now + 60)\"}", 401),
        ("{\(good),\(grants),\"exp\":\(now + 60).5}", 401),
        // An integer as written: a real, even a whole one, is not a NumericDate.
        ("{\(good),\(grants),\"exp\":\(now + 60).0}", 401),
        ("{\(good),\(grants),\"exp\":1.80000006e9}", 401),
        ("{\(good),\(grants),\"exp\":\(now + 60),\"nbf\":\(now).0}", 401),
        ("{\(good),\(grants),\"exp\":\(now)}", 401),
        ("{\(good),\(grants),\"exp\":\(now - 1)}", 401),
        // nbf: not yet valid, or not an integer.
        ("{\(good),\(grants),\"exp\":\(now + 60),\"nbf\":\(now + 1)}", 401),
        ("{\(good),\(grants),\"exp\":\(now + 60),\"nbf\":\"soon\"}", 401),
        // Issuer and audience as configured.
        ("{\"iss\":\"https://evil.example\",\"aud\":\"overlayd\",\(grants),\"exp\":\(now + 60)}", 401),
        ("{\"aud\":\"overlayd\",\(grants),\"exp\":\(now + 60)}", 401),
        ("{\"iss\":\"https://api.example\",\"aud\":\"other\",\(grants),\"exp\":\(now + 60)}", 401),
        ("{\"iss\":\"https://api.example\",\"aud\":[\"other\"],\(grants),\"exp\":\(now + 60)}", 401),
        // A malformed overlayd claim is 401, not an empty grant.
        ("{\(good),\"overlayd\":{\"read\":\"user-42\"},\"exp\":\(now + 60)}", 401),
        ("{\(good),\"overlayd\":{\"read\":[\"a/b\"]},\"exp\":\(now + 60)}", 401),
        ("{\(good),\"overlayd\":{\"admin\":true},\"exp\":\(now + 60)}", 401),
        ("{\(good),\"overlayd\":[\"user-42\"],\"exp\":\(now + 60)}", 401),
        ("{\(good),\(grants),\"exp\":\(now + 60),\"sub\":42}", 401),
    ])
    func claims(claims: String, status: Int) throws {
        let service = try Self.service()
        let (answered, code) = Self.status(service, Self.mint(claims))
        #expect(answered == status)
        if status == 401 { #expect(code == "invalid_token") }
        if status == 403 { #expect(code == "forbidden") }
    }

    /// The signature and the header: `none`, another algorithm, another key, a changed payload,
    /// garbage; each 401 `invalid_token`, never anonymous (which could read here).
    @Test func badSignaturesAndHeaders() throws {
        let service = try Self.service { $0.anonymousAccess = .readAll }
        let claims = "{\(Self.good),\(Self.grants),\"exp\":\(Self.now + 60)}"
        let good = Self.mint(claims)
        #expect(Self.status(service, good).0 == 200)
        let parts = good.split(separator: ".").map(String.init)
        let unsigned = Self.base64URL(Array(#"{"alg":"none","typ":"JWT"}"#.utf8)) + "." + parts[1] + "."
        let bad: [String] = [
            unsigned, unsigned + "x",
            Self.mint(claims, header: #"{"alg":"HS384","typ":"JWT"}"#),
            Self.mint(claims, key: Self.secret + "x"),
            parts[0] + "." + Self.base64URL(Array(claims.replacing("user-42", with: "user-43").utf8)) + "." + parts[2],
            parts[0] + "." + parts[1] + "." + String(parts[2].dropLast()) + (parts[2].last == "A" ? "B" : "A"),
            "a.b.c", "!!.??.**", parts[0] + "." + parts[1],
        ]
        for token in bad {
            let (status, code) = Self.status(service, token)
            #expect(status == 401 && code == "invalid_token", "\(token)")
        }
        #expect(Self.status(service, good, "GET", "/overlay").0 == 403, "a token's grants, not anonymous's")
    }

    /// The `write` list writes; `read` and `write` of one pattern add up; `/whoami` says `jwt`
    /// with the claim's grants and `exp`; `?auth=` carries a JWT on reads.
    @Test func grantsAndWhoami() throws {
        let service = try Self.service()
        let token = Self.mint("{\(Self.good),\(Self.grants),\"exp\":\(Self.now + 60)}")
        #expect(Self.status(service, token, "POST", "/channels/user-42/messages").0 == 202)
        #expect(Self.status(service, token, "POST", "/channels/news/messages").0 == 403)
        let whoami =
            service.answer(
                HTTPRequest("GET", "/whoami", headers: [Header(name: "Authorization", value: "Bearer \(token)")])
            ).json
        #expect(whoami["principal"]?.string == "jwt")
        #expect(whoami["expiresAt"]?.int == Int(Self.now + 60))
        #expect(whoami["grants"]?.array?.count == 3)
        let query = service.answer(
            HTTPRequest("GET", "/channels/news/overlay", query: [QueryItem(name: "auth", value: token)]))
        #expect(query.status == 200)
    }

    /// Without `access.jwt` a JWT is just a credential that is not valid.
    @Test func withoutConfigurationAJWTIsInvalid() throws {
        let service = try OverlayService.guarded()
        let token = Self.mint("{\(Self.good),\(Self.grants),\"exp\":\(Self.now + 60)}")
        let (status, code) = Self.status(service, token)
        #expect(status == 401 && code == "invalid_token")
    }

    static func fixture(_ name: String) throws -> [UInt8] {
        try #require(Files.read(Repository.path("Tests/SignedTokenTests/Fixtures/" + name)))
    }

    static func fixtureToken(_ name: String) throws -> String {
        let lines = String(decoding: try fixture("tokens.txt"), as: UTF8.self).split(separator: "\n")
        let line = try #require(lines.first { $0.hasPrefix(name + " ") })
        return String(line.dropFirst(name.count + 1))
    }

    /// RS256 and ES256 with PyJWT's tokens and public keys: verified (403: they carry no
    /// overlayd claim, so no grant), and one character off is 401.
    @Test(arguments: [("rs256", SignedTokenAlgorithm.rs256, "rsa-2048.pem"), ("es256", .es256, "ec-p256.pem")])
    func publicKeys(name: String, algorithm: SignedTokenAlgorithm, key: String) throws {
        let pem = try Self.fixture(key)
        let service = try Self.service(issuer: "https://issuer.example", audience: "overlayd") {
            $0.jwt = SignedTokenSettings(
                algorithm: algorithm, key: pem, issuer: "https://issuer.example", audience: "overlayd")
        }
        let token = try Self.fixtureToken(name)
        #expect(Self.status(service, token).0 == 403)
        var changed = Array(token.utf8)
        let middle = changed.firstIndex(of: UInt8(ascii: "."))! + 5
        changed[middle] = changed[middle] == UInt8(ascii: "A") ? UInt8(ascii: "B") : UInt8(ascii: "A")
        #expect(Self.status(service, String(decoding: changed, as: UTF8.self)).0 == 401)
        // The other algorithm's token is refused before its signature is looked at.
        let other = try Self.fixtureToken(name == "rs256" ? "es256" : "rs256")
        #expect(Self.status(service, other).0 == 401)
    }

    /// `access.jwt` in the configuration: each mistake names its key; the PEM file is read and
    /// checked at start-up.
    @Test func configuration() throws {
        func read(_ json: String) -> String? {
            var configuration = ServiceConfiguration()
            do {
                try AccessSettings.readJWT(.json(try JSONParser.parse(Array(json.utf8))), "access.jwt", &configuration)
                return nil
            } catch let error as ConfigurationError {
                return error.key
            } catch {
                return "parse"
            }
        }
        #expect(read(#"{"algorithm": "HS256", "key": "\#(Self.secret)"}"#) == nil)
        #expect(read(#"{"algorithm": "HS256", "key": "short"}"#) == "access.jwt.key")
        #expect(read(#"{"algorithm": "none", "key": "\#(Self.secret)"}"#) == "access.jwt.algorithm")
        #expect(read(#"{"algorithm": "HS256"}"#) == "access.jwt.key")
        #expect(read(#"{"algorithm": "HS256", "key": "\#(Self.secret)", "leeway": 5}"#) == "access.jwt.leeway")
        #expect(read(#"{"algorithm": "HS256", "key": "\#(Self.secret)", "issuer": 5}"#) == "access.jwt.issuer")
        #expect(read(#"{"algorithm": "RS256", "key": "/nonexistent.pem"}"#) == "access.jwt.key")
        #expect(read(#"["HS256"]"#) == "access.jwt")
        let fixtures = Repository.path("Tests/SignedTokenTests/Fixtures")
        #expect(read(#"{"algorithm": "RS256", "key": "\#(fixtures)/rsa-2048.pem"}"#) == nil)
        #expect(
            read(#"{"algorithm": "RS256", "key": "\#(fixtures)/rsa-1024.pem"}"#)
                == "access.jwt.key")
        #expect(
            read(#"{"algorithm": "ES256", "key": "\#(fixtures)/ec-p384.pem"}"#)
                == "access.jwt.key")
    }
}
