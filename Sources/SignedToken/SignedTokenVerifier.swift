private import CCrypto
private import CJWT

/// Checks the signature of compact JWTs (RFC 7519) under one configured algorithm and key, with
/// libjwt 1.10.
///
/// libjwt takes the algorithm from the token's own header, so a token signed with HS256 under an
/// RS256 key's public PEM (public, so anyone's) as the secret would verify. That is why the header
/// is read here first, strictly, and libjwt is called only when its `alg` is the configured one;
/// libjwt's reading of it is compared once more afterwards.
///
/// Safe to share: it holds only constants, and each verification makes, uses and frees its own
/// libjwt object (and libcrypto key), as libjwt requires.
public final class SignedTokenVerifier: Sendable {
    /// Longer tokens are malformed: libjwt copies each part onto the stack (alloca), and a
    /// request header, where tokens come from, is far shorter.
    public static let maximumTokenBytes = 16_384

    /// The shortest HMAC secret taken, for every HS* algorithm: 256 bits.
    public static let minimumSecretBytes = 32

    /// The one algorithm this verifier accepts.
    public let algorithm: SignedTokenAlgorithm
    /// HS*: the secret. RS256, ES256: the checked public key as libcrypto re-encoded it (PEM).
    private let key: [UInt8]

    /// HS*: key is the secret bytes, at least `minimumSecretBytes` (32) of them. RS256/ES256: key
    /// is the PEM text of a public key (SubjectPublicKeyInfo, `-----BEGIN PUBLIC KEY-----`),
    /// checked here by libcrypto: RSA of at least 2048 bits for RS256, EC on P-256 (prime256v1)
    /// for ES256.
    ///
    /// - Throws: `SignedTokenKeyError` saying why the key is refused.
    public init(algorithm: SignedTokenAlgorithm, key: [UInt8]) throws(SignedTokenKeyError) {
        if algorithm.isHMAC {
            guard key.count >= Self.minimumSecretBytes else {
                throw SignedTokenKeyError(
                    algorithm: algorithm, reason: .secretTooShort(bytes: key.count, minimum: Self.minimumSecretBytes))
            }
            // jwt_decode takes the key's length as an int.
            precondition(key.count <= Int(Int32.max), "a secret of \(key.count) bytes: longer than libjwt takes")
            self.key = key
        } else {
            self.key = try PublicKeyPEM.canonical(key, for: algorithm)
        }
        self.algorithm = algorithm
    }

    /// The payload JSON's bytes, exactly as signed, when the token's signature is good; else why not.
    ///
    /// Never consults the clock: `exp`, `nbf`, `iss` and `aud` are the caller's to check, in the
    /// payload returned.
    /// The top-level members of a verified payload written as integers (`"exp": 1800000000`, not
    /// `1.8e9` or `1800000000.0`), by name: RFC 7519's NumericDate claims the caller checks.
    public static func integerClaims(of payload: [UInt8]) -> [String: Int64] {
        var integers: [String: Int64] = [:]
        for (name, value) in JSONObjectReader.members(of: payload) ?? [:] {
            if case .integer(let number) = value { integers[name] = number }
        }
        return integers
    }

    public func verify(_ token: String) -> Result<[UInt8], SignedTokenFailure> {
        let bytes = Array(token.utf8)
        guard bytes.count <= Self.maximumTokenBytes, let parts = CompactToken(bytes),
            let header = JSONObjectReader.members(of: parts.header),
            JSONObjectReader.members(of: parts.payload) != nil,
            case .string(let alg)? = header["alg"]
        else { return .failure(.malformed) }
        // Bytes, not String ==, which would call canonically equivalent spellings equal.
        guard Array(alg.utf8) == Array(algorithm.rawValue.utf8) else { return .failure(.algorithmMismatch) }
        guard Self.libjwtAccepts(header) else { return .failure(.malformed) }
        switch libjwtVerifies(token) {
        case .verified: return .success(parts.payload)
        case .refused: return .failure(.badSignature)
        case .readOtherAlgorithm: return .failure(.algorithmMismatch)
        }
    }

    /// libjwt 1.10 refuses a `typ` other than JWT (any case) before it looks at the signature, and
    /// understands no `crit` extension (RFC 7515 §4.1.11 requires refusing those it does not).
    private static func libjwtAccepts(_ header: [String: JSONObjectReader.Value]) -> Bool {
        if header["crit"] != nil { return false }
        guard let typ = header["typ"] else { return true }
        guard case .string(let text) = typ else { return false }
        // strcasecmp's comparison, in the C locale: ASCII letters only.
        let lowercased = text.utf8.map { (0x41...0x5a).contains($0) ? $0 + 0x20 : $0 }
        return lowercased == Array("jwt".utf8)
    }

    private enum Outcome {
        case verified, refused, readOtherAlgorithm
    }

    private func libjwtVerifies(_ token: String) -> Outcome {
        var jwt: OpaquePointer?
        let status = key.withUnsafeBufferPointer { key in jwt_decode(&jwt, token, key.baseAddress, Int32(key.count)) }
        defer { jwt_free(jwt) }
        // A refused signature leaves libcrypto's reasons in this thread's error queue, where the
        // next libcrypto user on the thread would take them for its own.
        ERR_clear_error()
        guard status == 0, let jwt else { return .refused }
        return jwt_get_alg(jwt) == algorithm.libjwt ? .verified : .readOtherAlgorithm
    }
}

extension SignedTokenAlgorithm {
    fileprivate var libjwt: jwt_alg_t {
        switch self {
        case .hs256: return JWT_ALG_HS256
        case .hs384: return JWT_ALG_HS384
        case .hs512: return JWT_ALG_HS512
        case .rs256: return JWT_ALG_RS256
        case .es256: return JWT_ALG_ES256
        }
    }
}
