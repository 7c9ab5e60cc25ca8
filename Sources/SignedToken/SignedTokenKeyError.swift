/// Why a key was refused for an algorithm: the key and what to give instead.
public struct SignedTokenKeyError: Error, CustomStringConvertible, Equatable {
    /// What is wrong with the key.
    public enum Reason: Sendable, Equatable {
        /// An HMAC secret shorter than `SignedTokenVerifier.minimumSecretBytes`.
        case secretTooShort(bytes: Int, minimum: Int)
        /// No public key could be read: the text holds no PEM `PUBLIC KEY` (SubjectPublicKeyInfo)
        /// block, or one libcrypto cannot parse.
        case notAPublicKey
        /// A public key of another type than the algorithm takes, by libcrypto's name for it
        /// ("RSA", "EC", "ED25519", ...).
        case wrongKeyType(String)
        /// An RSA key of fewer than 2048 bits.
        case rsaKeyTooSmall(bits: Int)
        /// An EC key on another curve than P-256, by libcrypto's name for it ("secp384r1").
        case wrongCurve(String)
    }

    /// The algorithm the key was given for.
    public let algorithm: SignedTokenAlgorithm
    /// What is wrong with it.
    public let reason: Reason

    /// A refusal of a key for `algorithm`.
    public init(algorithm: SignedTokenAlgorithm, reason: Reason) {
        self.algorithm = algorithm
        self.reason = reason
    }

    /// One line naming the algorithm, what is wrong and what it needs: for a log or a start-up error.
    public var description: String {
        let name = algorithm.rawValue
        switch reason {
        case .secretTooShort(let bytes, let minimum):
            return "\(name) secret: \(bytes) bytes, at least \(minimum) are needed"
        case .notAPublicKey:
            return "\(name) key: not a PEM public key (a -----BEGIN PUBLIC KEY----- block, SubjectPublicKeyInfo)"
        case .wrongKeyType(let type):
            return "\(name) key: an \(type) key, \(name) needs \(algorithm == .es256 ? "an EC P-256" : "an RSA") key"
        case .rsaKeyTooSmall(let bits):
            return "\(name) key: RSA of \(bits) bits, at least 2048 are needed"
        case .wrongCurve(let curve):
            return "\(name) key: EC on curve \(curve), \(name) needs P-256 (prime256v1)"
        }
    }
}
