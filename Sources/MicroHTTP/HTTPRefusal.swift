/// Why the server answers a request by itself, without calling the handler. The application
/// words the answer (`HTTPServerOptions.refusals`); the server only knows when to give it.
public enum HTTPRefusal: Sendable, Hashable {
    /// The body is longer than `limit` bytes: 413, sent while the body still arrives.
    case bodyTooLarge(limit: Int)
    /// The request's body has no single length (RFC 9112 §6.3): 400, and the connection closes.
    case ambiguousFraming(String)
    /// The server is stopping: 503 to a request that starts now, or to a reader still waiting.
    case stopping

    /// The status each refusal is given.
    public var status: Int {
        switch self {
        case .bodyTooLarge: 413
        case .ambiguousFraming: 400
        case .stopping: 503
        }
    }

    /// A plain-text answer, for a server whose application words none.
    @Sendable public static func plainText(_ refusal: HTTPRefusal) -> HTTPResponse {
        let text: String
        var headers = [Header(name: "Content-Type", value: "text/plain; charset=utf-8")]
        switch refusal {
        case .bodyTooLarge(let limit):
            text = "the body is over \(limit) bytes"
        case .ambiguousFraming(let reason):
            text = "the body's length is ambiguous: \(reason)"
        case .stopping:
            text = "the server is stopping"
            headers.append(Header(name: "Retry-After", value: "1"))
        }
        return HTTPResponse(status: refusal.status, headers: headers, body: Array("\(text)\n".utf8))
    }
}
