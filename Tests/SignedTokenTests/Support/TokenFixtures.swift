import SignedToken
import TestSupport

/// What scripts/jwt-fixtures wrote into Fixtures/: public keys, the HMAC secret, the payload pyjwt
/// signed and the tokens by name.
enum TokenFixtures {
    static let directory = Repository.path("Tests/SignedTokenTests/Fixtures")

    /// The bytes of the file `name`; an error if it is missing or empty.
    static func bytes(_ name: String) throws -> [UInt8] {
        let bytes = Array(TemporaryDirectory.read(directory + "/" + name).utf8)
        guard !bytes.isEmpty else { throw TestSupportError("no \(directory)/\(name): run scripts/jwt-fixtures") }
        return bytes
    }

    /// The shared secret of the HS* tokens: 64 letters and digits.
    static func secret() throws -> [UInt8] { try bytes("hs-secret.txt") }

    /// The payload every good token carries, exactly as pyjwt signed it.
    static func payload() throws -> [UInt8] { try bytes("payload.json") }

    /// The token `name` in tokens.txt (`name token` lines, `#` comments).
    static func token(_ name: String) throws -> String {
        let text = String(decoding: try bytes("tokens.txt"), as: UTF8.self)
        for line in text.split(separator: "\n") where !line.hasPrefix("#") {
            let fields = line.split(separator: " ")
            if fields.count == 2 && fields[0] == name { return String(fields[1]) }
        }
        throw TestSupportError("no token \(name) in \(directory)/tokens.txt: run scripts/jwt-fixtures")
    }

    /// The file holding the public key each asymmetric algorithm is tested with.
    static func keyFile(_ algorithm: SignedTokenAlgorithm) -> String? {
        switch algorithm {
        case .rs256: return "rsa-2048.pem"
        case .es256: return "ec-p256.pem"
        case .hs256, .hs384, .hs512: return nil
        }
    }

    /// A verifier for `algorithm` under the fixtures' secret or public key for it.
    static func verifier(_ algorithm: SignedTokenAlgorithm) throws -> SignedTokenVerifier {
        try SignedTokenVerifier(algorithm: algorithm, key: keyFile(algorithm).map(bytes) ?? secret())
    }
}
