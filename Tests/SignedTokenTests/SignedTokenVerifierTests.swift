import SignedToken
import Testing

/// Tokens that pyjwt signed (scripts/jwt-fixtures) through libjwt: the good ones give back the
/// payload pyjwt signed, byte for byte; a tampered, confused or unreadable one gives the reason.
@Suite("Verifying signed tokens")
struct SignedTokenVerifierTests {
    /// Each algorithm's good token verifies, and what comes back is exactly the payload signed.
    @Test(arguments: SignedTokenAlgorithm.allCases)
    func goodToken(_ algorithm: SignedTokenAlgorithm) throws {
        let verifier = try TokenFixtures.verifier(algorithm)
        let token = try TokenFixtures.token(algorithm.rawValue.lowercased())
        #expect(verifier.verify(token) == .success(try TokenFixtures.payload()))
        #expect(verifier.algorithm == algorithm)
    }

    /// One signature character replaced, or the payload swapped for another with the signature
    /// kept: the signature does not verify.
    @Test(arguments: [SignedTokenAlgorithm.hs256, .rs256, .es256])
    func tampered(_ algorithm: SignedTokenAlgorithm) throws {
        let verifier = try TokenFixtures.verifier(algorithm)
        let name = algorithm.rawValue.lowercased()
        #expect(verifier.verify(try TokenFixtures.token(name + "-signature-changed")) == .failure(.badSignature))
        #expect(verifier.verify(try TokenFixtures.token(name + "-payload-changed")) == .failure(.badSignature))
    }

    /// Signed by another RSA key, or ECDSA's signature in DER rather than RFC 7518's R‖S: not a
    /// good signature (libjwt reads ES256 signatures as the 64 bytes R‖S, as pyjwt writes them).
    @Test func wrongKeyOrSignatureFormat() throws {
        let rs256 = try TokenFixtures.verifier(.rs256)
        #expect(rs256.verify(try TokenFixtures.token("rs256-other-key")) == .failure(.badSignature))
        let es256 = try TokenFixtures.verifier(.es256)
        #expect(es256.verify(try TokenFixtures.token("es256-der-signature")) == .failure(.badSignature))
    }

    /// A token of any algorithm but the configured one is refused before its signature is looked
    /// at: every good token against every other verifier.
    @Test(arguments: SignedTokenAlgorithm.allCases)
    func otherAlgorithms(_ configured: SignedTokenAlgorithm) throws {
        let verifier = try TokenFixtures.verifier(configured)
        for algorithm in SignedTokenAlgorithm.allCases where algorithm != configured {
            let token = try TokenFixtures.token(algorithm.rawValue.lowercased())
            #expect(verifier.verify(token) == .failure(.algorithmMismatch), "\(algorithm) against \(configured)")
        }
    }

    /// The classic key confusion: HS256 signed with the RS256 key's PEM (public) as the secret.
    /// The forgery is real (an HS256 verifier with that PEM as its secret accepts it), and libjwt
    /// alone would accept it too, as it takes the algorithm from the token; the RS256 verifier
    /// refuses it for its alg.
    @Test func keyConfusion() throws {
        let token = try TokenFixtures.token("hs256-key-confusion")
        let pem = try TokenFixtures.bytes("rsa-2048.pem")
        let underThePEM = try SignedTokenVerifier(algorithm: .hs256, key: pem)
        #expect(underThePEM.verify(token) == .success(try TokenFixtures.payload()))
        #expect(try TokenFixtures.verifier(.rs256).verify(token) == .failure(.algorithmMismatch))
    }

    /// `alg` none. Unsigned, as pyjwt writes it, its third part is empty: malformed, since a token
    /// must have three non-empty parts, which is checked before the header is read. With a
    /// signature part (another token's), it is read, and its alg is not the configured one.
    @Test(arguments: SignedTokenAlgorithm.allCases)
    func algorithmNone(_ algorithm: SignedTokenAlgorithm) throws {
        let verifier = try TokenFixtures.verifier(algorithm)
        let unsigned = try TokenFixtures.token("none-unsigned")
        #expect(unsigned.hasSuffix("."))
        #expect(verifier.verify(unsigned) == .failure(.malformed))
        #expect(verifier.verify(try TokenFixtures.token("none-with-signature")) == .failure(.algorithmMismatch))
    }

    /// What is not three non-empty parts of canonical unpadded base64url is malformed, whatever
    /// the verifier.
    @Test(arguments: SignedTokenAlgorithm.allCases)
    func notThreeParts(_ algorithm: SignedTokenAlgorithm) throws {
        let verifier = try TokenFixtures.verifier(algorithm)
        let good = try TokenFixtures.token(algorithm.rawValue.lowercased())
        let parts = good.split(separator: ".").map(String.init)
        let malformed = [
            "", ".", "..", "...", "garbage", "!!!.@@@.###", "not base64.at all.here",
            parts[0] + "." + parts[1],
            good + ".", good + "." + parts[2],
            "." + parts[1] + "." + parts[2], parts[0] + ".." + parts[2],
            good + "=", parts[0] + "=." + parts[1] + "." + parts[2],
            " " + good, good + "\n", parts[0] + "." + parts[1] + ".+" + parts[2].dropFirst(),
            parts[0] + "." + parts[1] + "./" + parts[2].dropFirst(),
        ]
        for token in malformed {
            #expect(verifier.verify(token) == .failure(.malformed), "\(token)")
        }
        // Still good after all those: nothing was remembered.
        #expect(verifier.verify(good) == .success(try TokenFixtures.payload()))
    }

    /// A header or payload that decodes, but to something other than one JSON object that names
    /// its alg, is malformed.
    @Test func unreadableHeaderOrPayload() throws {
        let verifier = try TokenFixtures.verifier(.hs256)
        let parts = try TokenFixtures.token("hs256").split(separator: ".").map(String.init)
        func token(header: String? = nil, payload: String? = nil) -> String {
            [header.map(Self.base64URL) ?? parts[0], payload.map(Self.base64URL) ?? parts[1], parts[2]]
                .joined(separator: ".")
        }
        for header in [
            "hello", "[]", "{}", #"{"typ":"JWT"}"#, #"{"alg":256}"#, #"{"alg":null}"#, #"{"alg":"HS256""#,
            #"{"alg":"HS256"} x"#, #"{"alg":"HS256",}"#, #"{'alg':'HS256'}"#,
        ] {
            #expect(verifier.verify(token(header: header)) == .failure(.malformed), "\(header)")
        }
        for payload in ["", "hello", "1", #""alice""#, "null", #"{"sub":"alice""#, #"{"sub":"alice"}}"#] {
            #expect(verifier.verify(token(payload: payload)) == .failure(.malformed), "\(payload)")
        }
    }

    /// Tokens pyjwt or Python's hmac signed well, whose header or payload this verifier refuses to
    /// read: each is a way for libjwt and the caller's JSON reader to see different things, or a
    /// header libjwt 1.10 would refuse anyway.
    @Test func wellSignedButUnreadable() throws {
        let verifier = try TokenFixtures.verifier(.hs256)
        for name in [
            "hs256-typ-at-jwt", "hs256-crit", "hs256-header-nul", "hs256-payload-nul", "hs256-duplicate-alg",
            "hs256-array-payload",
        ] {
            #expect(verifier.verify(try TokenFixtures.token(name)) == .failure(.malformed), "\(name)")
        }
        // Signature bits past the data, which libjwt ignores: a second spelling of the same token.
        let rs256 = try TokenFixtures.verifier(.rs256)
        #expect(rs256.verify(try TokenFixtures.token("rs256-noncanonical-signature")) == .failure(.malformed))
        // An escape is read as JSON reads it: "\u0048S256" is HS256, to this reader and to libjwt's.
        #expect(verifier.verify(try TokenFixtures.token("hs256-escaped-alg")) == .success(try TokenFixtures.payload()))
    }

    /// A token longer than the limit is malformed before anything is decoded.
    @Test func tooLong() throws {
        let verifier = try TokenFixtures.verifier(.hs256)
        let parts = try TokenFixtures.token("hs256").split(separator: ".").map(String.init)
        let padding = String(repeating: "A", count: SignedTokenVerifier.maximumTokenBytes)
        #expect(verifier.verify(parts[0] + "." + parts[1] + padding + "." + parts[2]) == .failure(.malformed))
    }

    static func base64URL(_ text: String) -> String {
        let alphabet = Array("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_".utf8)
        let bytes = Array(text.utf8)
        var encoded: [UInt8] = []
        for start in stride(from: 0, to: bytes.count, by: 3) {
            let chunk = bytes[start..<min(start + 3, bytes.count)]
            let value = chunk.enumerated().reduce(UInt32(0)) { $0 | UInt32($1.element) << (16 - 8 * $1.offset) }
            for index in 0...chunk.count { encoded.append(alphabet[Int(value >> (18 - 6 * index) & 63)]) }
        }
        return String(decoding: encoded, as: UTF8.self)
    }
}
