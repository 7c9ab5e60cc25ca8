/// The JWS algorithms (RFC 7518 §3.1) a verifier can be configured with, by their `alg` names.
public enum SignedTokenAlgorithm: String, Sendable, CaseIterable {
    /// HMAC with SHA-256, SHA-384 or SHA-512 under a shared secret.
    case hs256 = "HS256", hs384 = "HS384", hs512 = "HS512"
    /// RSASSA-PKCS1-v1_5 with SHA-256 under an RSA public key.
    case rs256 = "RS256"
    /// ECDSA on P-256 with SHA-256, the signature as R‖S (64 bytes).
    case es256 = "ES256"

    /// Whether the key is a shared secret rather than a public key.
    var isHMAC: Bool {
        switch self {
        case .hs256, .hs384, .hs512: return true
        case .rs256, .es256: return false
        }
    }
}
