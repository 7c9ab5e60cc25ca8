/// Why the server answers a request by itself, without calling the handler. The application
/// words the answer (`HTTPServerOptions.refusals`); the server only knows when to give it.
public enum HTTPRefusal: Sendable, Hashable {
    /// The body is longer than `limit` bytes: 413, sent while the body still arrives.
    case bodyTooLarge(limit: Int)
    /// The request's body has no single length (RFC 9112 §6.3): 400, and the connection closes.
    case ambiguousFraming(String)
    /// The server is stopping: 503 to a request that starts now, or to a reader still waiting.
    case stopping
    /// The request breaks HTTP/1.1's syntax (RFC 9112): 400, and the connection closes.
    case malformed(String)
    /// The body comes in a transfer coding the server does not read (anything but `chunked`
    /// alone): 501, and the connection closes.
    case unsupportedTransferCoding(String)

    /// The status each refusal is given.
    public var status: Int {
        switch self {
        case .bodyTooLarge: 413
        case .ambiguousFraming, .malformed: 400
        case .stopping: 503
        case .unsupportedTransferCoding: 501
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
        case .malformed(let reason):
            text = "the request is malformed: \(reason)"
        case .unsupportedTransferCoding(let coding):
            text = "transfer coding \(coding) is not supported"
        }
        return HTTPResponse(status: refusal.status, headers: headers, body: Array("\(text)\n".utf8))
    }
}
