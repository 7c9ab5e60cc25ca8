import SignedToken
import Testing

/// Keys are checked when a verifier is made: a refused one throws, saying why, so that a bad
/// configuration stops start-up rather than every token failing later.
@Suite("Refusing keys")
struct SignedTokenKeyErrorTests {
    /// A secret of 31 bytes is refused for every HS* algorithm; one of 32 is taken.
    @Test(arguments: [SignedTokenAlgorithm.hs256, .hs384, .hs512])
    func shortSecret(_ algorithm: SignedTokenAlgorithm) throws {
        let secret = try TokenFixtures.secret()
        let error = #expect(throws: SignedTokenKeyError.self) {
            try SignedTokenVerifier(algorithm: algorithm, key: Array(secret.prefix(31)))
        }
        #expect(error?.algorithm == algorithm)
        #expect(error?.reason == .secretTooShort(bytes: 31, minimum: 32))
        #expect(error?.description == "\(algorithm.rawValue) secret: 31 bytes, at least 32 are needed")
        #expect(throws: SignedTokenKeyError.self) { try SignedTokenVerifier(algorithm: algorithm, key: []) }
        let verifier = try SignedTokenVerifier(algorithm: algorithm, key: Array(secret.prefix(32)))
        #expect(verifier.verify(try TokenFixtures.token(algorithm.rawValue.lowercased())) == .failure(.badSignature))
    }

    /// An RSA key of 1024 bits is too small for RS256.
    @Test func smallRSAKey() throws {
        let pem = try TokenFixtures.bytes("rsa-1024.pem")
        let error = #expect(throws: SignedTokenKeyError.self) { try SignedTokenVerifier(algorithm: .rs256, key: pem) }
        #expect(error?.reason == .rsaKeyTooSmall(bits: 1024))
        #expect(error?.description == "RS256 key: RSA of 1024 bits, at least 2048 are needed")
    }

    /// ES256 takes P-256 only: a P-384 key is refused, naming its curve.
    @Test func wrongCurve() throws {
        let pem = try TokenFixtures.bytes("ec-p384.pem")
        let error = #expect(throws: SignedTokenKeyError.self) { try SignedTokenVerifier(algorithm: .es256, key: pem) }
        #expect(error?.reason == .wrongCurve("secp384r1"))
        #expect(error?.description.contains("P-256") == true)
    }

    /// A key of another type than the algorithm's: RSA for ES256, EC for RS256, Ed25519 for either.
    @Test func wrongKeyType() throws {
        let rsa = try TokenFixtures.bytes("rsa-2048.pem")
        let ec = try TokenFixtures.bytes("ec-p256.pem")
        let ed25519 = try TokenFixtures.bytes("ed25519.pem")
        let cases: [(SignedTokenAlgorithm, [UInt8], String)] = [
            (.es256, rsa, "RSA"), (.rs256, ec, "EC"), (.rs256, ed25519, "ED25519"), (.es256, ed25519, "ED25519"),
        ]
        for (algorithm, pem, type) in cases {
            let error = #expect(throws: SignedTokenKeyError.self) {
                try SignedTokenVerifier(algorithm: algorithm, key: pem)
            }
            #expect(error == SignedTokenKeyError(algorithm: algorithm, reason: .wrongKeyType(type)))
        }
    }

    /// Text that holds no PEM public key: garbage, empty, a PEM block cut short or damaged, a
    /// certificate request's label.
    @Test(arguments: [SignedTokenAlgorithm.rs256, .es256])
    func notAPublicKey(_ algorithm: SignedTokenAlgorithm) throws {
        let pem = String(decoding: try TokenFixtures.bytes(TokenFixtures.keyFile(algorithm)!), as: UTF8.self)
        let lines = pem.split(separator: "\n").map(String.init)
        let garbage = [
            "", "garbage", "-----BEGIN PUBLIC KEY-----\n-----END PUBLIC KEY-----\n",
            lines.dropLast().joined(separator: "\n"),
            pem.replacing("PUBLIC KEY", with: "CERTIFICATE REQUEST"),
            pem.replacing(lines[1], with: String(lines[1].reversed())),
        ]
        for text in garbage {
            let error = #expect(throws: SignedTokenKeyError.self) {
                try SignedTokenVerifier(algorithm: algorithm, key: Array(text.utf8))
            }
            #expect(error?.reason == .notAPublicKey, "\(text)")
            #expect(error?.description.contains("BEGIN PUBLIC KEY") == true)
        }
    }

    /// The key is the PEM's, not its surroundings': text around the block is ignored, as libcrypto
    /// reads PEM, and tokens still verify.
    @Test func textAroundThePEM() throws {
        let pem = try TokenFixtures.bytes("rsa-2048.pem")
        let verifier = try SignedTokenVerifier(
            algorithm: .rs256, key: Array("the issuer's key:\n".utf8) + pem + Array("\nrotated yearly\n".utf8))
        #expect(verifier.verify(try TokenFixtures.token("rs256")) == .success(try TokenFixtures.payload()))
    }
}
