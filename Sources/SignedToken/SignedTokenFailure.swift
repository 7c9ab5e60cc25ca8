/// Why a token was not accepted.
public enum SignedTokenFailure: Error, Equatable, Sendable {
    /// Not a compact JWS this verifier can check: not three non-empty parts of canonical unpadded
    /// base64url, a header or payload that is not one strict JSON object, no `alg`, a `typ` other
    /// than JWT or a `crit` (libjwt 1.10 refuses the one and understands no extension), or too long.
    case malformed
    /// The header's `alg` is not the configured algorithm (`none` included): the signature is not
    /// even looked at, so that no key is ever used with an algorithm it was not given for.
    case algorithmMismatch
    /// The signature does not verify under the configured key.
    case badSignature
}
