import OverlayEngine
import SignedToken

/// Signed tokens (JWT) as `access.jwt` configures them: the signature checked by libjwt, then the
/// claims here: an integer `exp` always, `nbf`, `iss` and `aud` when there, and the grants of the
/// `overlayd` claim. The server keeps no state for them.
final class SignedTokens: Sendable {
    private let verifier: SignedTokenVerifier
    private let issuer: String?
    private let audience: String?

    init(_ settings: SignedTokenSettings) throws(SignedTokenKeyError) {
        verifier = try SignedTokenVerifier(algorithm: settings.algorithm, key: settings.key)
        issuer = settings.issuer
        audience = settings.audience
    }

    /// Three non-empty base64url parts: what may be a JWT, and so is given to the verifier.
    static func isShaped(_ bytes: [UInt8]) -> Bool {
        var parts = 1
        var partLength = 0
        for byte in bytes {
            if byte == UInt8(ascii: ".") {
                guard partLength > 0 else { return false }
                parts += 1
                partLength = 0
            } else if Name.isNameByte(byte) {  // A-Z a-z 0-9 _ -: base64url's alphabet, "." handled above
                partLength += 1
            } else {
                return false
            }
        }
        return parts == 3 && partLength > 0
    }

    /// The principal of a JWT at `now` (Unix seconds), or why it is not valid.
    func principal(_ token: String, now: Int64) throws(AccessRefusal) -> Principal {
        let payload: [UInt8]
        switch verifier.verify(token) {
        case .success(let bytes): payload = bytes
        case .failure(.malformed): throw .invalid("the signed token is malformed")
        case .failure(.algorithmMismatch): throw .invalid("the signed token's algorithm is not the configured one")
        case .failure(.badSignature): throw .invalid("the signed token's signature is not valid")
        }
        guard case .object(let claims)? = try? JSONParser.parse(payload) else {
            throw .invalid("the signed token's claims are not a JSON object")
        }
        // Integers as written: a number like 1.8e9 is a Double to the JSON parser, not a NumericDate.
        let integers = SignedTokenVerifier.integerClaims(of: payload)
        guard let expires = integers["exp"], abs(expires) < 1_000_000_000_000_000 else {
            throw .invalid("the signed token must carry an integer exp")
        }
        guard now < expires else { throw .expired }
        if claims["nbf"] != nil {
            guard let start = integers["nbf"] else { throw .invalid("the signed token's nbf must be an integer") }
            guard start <= now else { throw .invalid("the signed token is not valid yet") }
        }
        if let issuer {
            // Bytes, not String ==, which would call canonically equivalent spellings equal.
            guard case .string(let claimed)? = claims["iss"], Array(claimed.utf8) == Array(issuer.utf8) else {
                throw .invalid("the signed token is for another issuer")
            }
        }
        if let audience {
            let matches: Bool =
                switch claims["aud"] {
                case .string(let claimed)?: Array(claimed.utf8) == Array(audience.utf8)
                case .array(let list)?:
                    list.contains {
                        if case .string(let claimed) = $0 { Array(claimed.utf8) == Array(audience.utf8) } else { false }
                    }
                default: false
                }
            guard matches else { throw .invalid("the signed token is for another audience") }
        }
        var subject: String?
        if let sub = claims["sub"] {
            guard case .string(let text) = sub else { throw .invalid("the signed token's sub must be a string") }
            subject = text
        }
        let grants = try Self.grants(claims["overlayd"])
        return Principal(.signed(subject: subject), grants: grants, expiresAt: expires)
    }

    /// `{"read": [PATTERN…], "write": […], "deny": […]}`, each optional; no claim is no grant.
    private static func grants(_ claim: JSONValue?) throws(AccessRefusal) -> Grants {
        guard let claim else { return .none }
        guard case .object(let members) = claim else {
            throw .invalid("the signed token's overlayd claim is malformed")
        }
        var grants: [Grant] = []
        for (name, access) in [("read", GrantAccess.read), ("write", .write), ("deny", .deny)] {
            guard let list = members[name] else { continue }
            guard case .array(let patterns) = list else { throw .invalid("the overlayd claim's \(name) is malformed") }
            for pattern in patterns {
                guard case .string(let text) = pattern, let parsed = ChannelPattern(text) else {
                    throw .invalid("the overlayd claim's \(name) holds a pattern that is not one")
                }
                grants.append(Grant(parsed, access))
            }
        }
        guard members.keys.allSatisfy({ ["read", "write", "deny"].contains($0) }) else {
            throw .invalid("the overlayd claim holds a member other than read, write and deny")
        }
        return Grants(grants)
    }
}
