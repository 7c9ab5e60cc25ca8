import MicroHTTP

/// Why a request's credential or access was refused: the RFC 6750 answers, and the reason
/// `overlayd_auth_failures_total` counts it under.
enum AccessRefusal: Error, Equatable {
    /// No credential, where anonymous lacks the access.
    case missing
    /// A credential that is malformed, unknown, or fails a JWT's checks.
    case invalid(String)
    case expired
    case revoked
    /// A valid principal without the access: what it lacks, where.
    case forbidden(String)

    /// The metric's label.
    var reason: String {
        switch self {
        case .missing: "missing"
        case .invalid: "invalid"
        case .expired: "expired"
        case .revoked: "revoked"
        case .forbidden: "forbidden"
        }
    }

    static let reasons = ["missing", "invalid", "expired", "revoked", "forbidden"]

    static let realm = "Bearer realm=\"overlayd\""

    var error: APIError {
        switch self {
        case .missing:
            APIError(
                status: 401, code: "unauthorized", message: "this needs a credential: Authorization: Bearer <token>",
                headers: [Header(name: "WWW-Authenticate", value: Self.realm)])
        case .invalid(let why):
            Self.invalidToken(why)
        case .expired:
            Self.invalidToken("the token has expired")
        case .revoked:
            Self.invalidToken("the token has been revoked")
        case .forbidden(let what):
            APIError(
                status: 403, code: "forbidden", message: what,
                headers: [Header(name: "WWW-Authenticate", value: Self.realm + ", error=\"insufficient_scope\"")])
        }
    }

    private static func invalidToken(_ message: String) -> APIError {
        APIError(
            status: 401, code: "invalid_token", message: message,
            headers: [Header(name: "WWW-Authenticate", value: realm + ", error=\"invalid_token\"")])
    }
}
