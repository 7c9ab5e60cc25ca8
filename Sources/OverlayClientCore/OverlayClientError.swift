/// Why a call to overlayd failed.
public enum OverlayClientError: Error, Hashable, Sendable, CustomStringConvertible {
    /// The server answered and refused the request: its status and error body.
    case refused(ServerError)
    /// The server could not be reached, or the connection broke before it answered.
    case unreachable(String)
    /// The server answered something that is not overlayd's answer.
    case invalidResponse(status: Int, reason: String)

    /// The HTTP status of an answer, if there was one.
    public var status: Int? {
        switch self {
        case .refused(let error): error.status
        case .unreachable: nil
        case .invalidResponse(let status, _): status
        }
    }

    /// The server's error code (`invalid_field`, `queue_full`, …) of a refusal.
    public var code: String? {
        if case .refused(let error) = self { return error.code }
        return nil
    }

    public var description: String {
        switch self {
        case .refused(let error): error.description
        case .unreachable(let reason): "overlayd cannot be reached: \(reason)"
        case .invalidResponse(let status, let reason): "unexpected answer (status \(status)): \(reason)"
        }
    }
}

/// An error as overlayd writes it, `{"error": {"code", "message", "field"}}`, with the status.
public struct ServerError: Error, Hashable, Sendable, CustomStringConvertible {
    public var status: Int
    /// The stable code (`invalid_field`, `not_found`, `unauthorized`, …).
    public var code: String
    /// The server's explanation, for a person.
    public var message: String
    /// The field, parameter or header at fault, where there is one.
    public var field: String?
    /// Seconds to wait before trying again, from `Retry-After` (429, 503).
    public var retryAfter: Double?

    public init(status: Int, code: String, message: String, field: String? = nil, retryAfter: Double? = nil) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.retryAfter = retryAfter
    }

    public var description: String { message }
}

/// The body of an error answer.
struct ErrorBody: Decodable {
    struct Detail: Decodable {
        var code: String
        var message: String
        var field: String?
    }

    var error: Detail
}
