import MicroHTTP
import OverlayEngine

/// An error answer: `{"error": {"code", "message", "field"}}` with its status (MODEL §5).
public struct APIError: Error, Hashable, Sendable {
    public var status: Int
    public var code: String
    public var message: String
    public var field: String?
    public var headers: [Header] = []

    public init(status: Int, code: String, message: String, field: String? = nil, headers: [Header] = []) {
        self.status = status
        self.code = code
        self.message = message
        self.field = field
        self.headers = headers
    }

    static func badRequest(_ message: String, field: String? = nil) -> APIError {
        APIError(status: 400, code: "bad_request", message: message, field: field)
    }

    static func invalidJSON(_ error: JSONSyntaxError) -> APIError {
        APIError(status: 400, code: "invalid_json", message: "the body is not valid JSON: \(error)")
    }

    static func invalidField(_ field: String, _ reason: String) -> APIError {
        APIError(status: 422, code: "invalid_field", message: "\(field) \(reason)", field: field)
    }

    static func notFound(_ message: String) -> APIError {
        APIError(status: 404, code: "not_found", message: message)
    }

    static func methodNotAllowed(_ method: String, allowed: [String]) -> APIError {
        APIError(
            status: 405, code: "method_not_allowed",
            message: "\(method) is not allowed here; use \(allowed.joined(separator: ", "))",
            headers: [Header(name: "Allow", value: allowed.joined(separator: ", "))])
    }

    static func unsupportedMediaType(_ type: String) -> APIError {
        APIError(
            status: 415, code: "unsupported_media_type",
            message:
                "cannot read a body of type \(type); send application/json, text/plain, a form or multipart/form-data")
    }

    /// A body in a content coding overlayd does not decode (every one but identity): read as it
    /// came, a gzip body would be a misleading 400 or a message of binary text. RFC 9110 §15.5.16
    /// suggests naming what is accepted.
    static func unsupportedEncoding(_ coding: String) -> APIError {
        APIError(
            status: 415, code: "unsupported_encoding",
            message: "cannot read a body in content coding \(coding); send it unencoded (identity)",
            field: "Content-Encoding", headers: [Header(name: "Accept-Encoding", value: "identity")])
    }

    /// The answer to a request the server will not finish because it is stopping.
    static let shuttingDown = APIError(
        status: 503, code: "shutting_down", message: "the server is stopping",
        headers: [Header(name: "Retry-After", value: "1")])

    /// The answers the HTTP server gives by itself, in this API's format.
    init(_ refusal: HTTPRefusal) {
        switch refusal {
        case .bodyTooLarge(let limit):
            self.init(status: refusal.status, code: "payload_too_large", message: "the body is over \(limit) bytes")
        case .ambiguousFraming(let reason):
            self = .badRequest("the body's length is ambiguous: \(reason)")
        case .stopping:
            self = .shuttingDown
        case .malformed(let reason):
            self = .badRequest("the request is malformed: \(reason)")
        case .unsupportedTransferCoding(let coding):
            self.init(
                status: refusal.status, code: "not_implemented",
                message: "transfer coding \(coding) is not supported; send Content-Length or chunked")
        }
    }

    /// The HTTP meaning of an engine refusal.
    init(_ error: EngineError) {
        switch error {
        case .invalidField(let field, let reason):
            self = .invalidField(field, reason)
        case .messageNotFound(let id):
            self = .notFound("no message \(id) (never posted, or gone from the history)")
        case .messageEnded(let id, let state):
            self = APIError(
                status: 409, code: "message_ended", message: "message \(id) has ended (\(state.rawValue))")
        case .nothingShown:
            self = APIError(status: 409, code: "nothing_shown", message: "no message is shown on the overlay")
        case .notScheduled(let id, let state, let field):
            self = APIError(
                status: 409, code: "not_scheduled",
                message: "message \(id) is \(state.rawValue), no longer scheduled: it cannot be given a new time",
                field: field)
        case .queueFull(let limit, let retryAfter):
            self = APIError(
                status: 503, code: "queue_full", message: "the queue holds its limit of \(limit) waiting messages",
                headers: [APIError.retryAfter(retryAfter)])
        case .scheduleFull(let limit, let retryAfter):
            self = APIError(
                status: 503, code: "schedule_full",
                message: "\(limit) scheduled messages already wait for their time, the limit",
                headers: [APIError.retryAfter(retryAfter)])
        }
    }

    /// `Retry-After` in whole seconds, rounded up, at least 1.
    private static func retryAfter(_ interval: Interval) -> Header {
        let seconds = max(
            1, (interval.nanoseconds / 1_000_000_000) + (interval.nanoseconds % 1_000_000_000 > 0 ? 1 : 0))
        return Header(name: "Retry-After", value: String(seconds))
    }

    var body: [UInt8] {
        var json = JSONWriter(capacity: 128)
        json.beginObject()
        json.key("error")
        json.beginObject()
        json.key("code")
        json.string(code)
        json.key("message")
        json.string(message)
        if let field {
            json.key("field")
            json.string(field)
        }
        json.endObject()
        json.endObject()
        return json.bytes
    }

    var response: HTTPResponse {
        HTTPResponse(status: status, headers: [Header.json, .noStore] + headers, body: body)
    }
}

extension Header {
    static let json = Header(name: "Content-Type", value: "application/json; charset=utf-8")
    /// Its value is set per answer with `with(value:)`.
    static let location = Header(name: "Location", value: "")
    /// For an answer that can change and has no validator: no cache may keep it (a 404 or a
    /// health answer would otherwise be stored with a heuristic lifetime).
    static let noStore = Header(name: "Cache-Control", value: "no-store")
}
