/// How the server listens and what it allows.
public struct HTTPServerOptions: Sendable {
    /// An IPv4 or IPv6 literal, or `localhost`.
    public var host: String = "127.0.0.1"
    /// 0 picks a free port; `HTTPServer.port` tells which.
    public var port: Int = 8080
    /// Threads of libmicrohttpd's pool; each runs its own epoll loop.
    public var threads: Int = 2
    /// Bodies longer than this are answered 413 as soon as they pass it.
    public var maxBodyBytes: Int = 16 * 1024
    /// Connections open at once, all threads together; 0 is libmicrohttpd's default, 1020.
    public var connectionLimit: Int = 0
    /// Connections open at once from one address; 0 is no limit.
    public var connectionsPerClient: Int = 0
    /// Seconds a connection may stay idle; 0 is forever.
    public var connectionTimeout: Int = 0
    /// Whether `AccessRecord.remoteAddress` is filled in for the observer (the access log).
    public var recordsAddresses: Bool = true
    /// Per-connection memory for headers and buffers; bounds the size of a request head.
    public var connectionMemoryLimit: Int = 0
    /// About the most a streamed response's connection holds in the kernel's send queue, so that
    /// a client that stops reading pins a bounded amount there too (`HTTPStream` bounds what waits
    /// in the process); 0 leaves it as `sendBufferBytes` set it.
    public var streamSendBufferBytes: Int = 0
    /// About the most any connection holds in the kernel's send queue (set on the listening
    /// socket, which every accepted one inherits); 0 leaves the kernel's own sizing.
    public var sendBufferBytes: Int = 0
    /// The answers the server gives by itself (a body too large, a stop, …), in the
    /// application's own format.
    public var refusals: @Sendable (HTTPRefusal) -> HTTPResponse = HTTPRefusal.plainText
    /// Headers sent with every response, the server's own refusals included (CORS headers that
    /// are the same for every request).
    public var responseHeaders: [Header] = []
    /// Headers for a response to a request that sends `Origin`, given its value (CORS with a list
    /// of origins, echoed one by one). Nil when none depends on it: `Origin` is then not looked up.
    public var originHeaders: (@Sendable (String) -> [Header])?

    /// Judges a request's head before its body is read, for what only the application knows: a
    /// larger body limit for some requests (a webhook's), or a refusal that spares reading the
    /// body. Nil: every request has `maxBodyBytes`.
    public var headCheck: (@Sendable (RequestHead) -> HeadVerdict)?

    public init() {}
}

/// What `HTTPServerOptions.headCheck` is shown of a request whose head has arrived: read from its
/// context when asked, so that a check that looks at nothing costs nothing. Not Sendable: it is
/// read during the check, on the connection's thread.
public struct RequestHead {
    let request: RequestContext

    init(_ request: RequestContext) {
        self.request = request
    }

    public var method: String { request.method }
    public var path: String { request.path }
    /// The query as sent, undecoded: empty for most requests, which the check can pass at once.
    public var rawQuery: [UInt8] { request.rawQuery }
    public var hasQuery: Bool { !request.rawQuery.isEmpty }

    /// The first header with this name.
    public func header(_ name: String) -> String? {
        request.headers.lookUp(name, on: request.connection) { $0.map { String(decoding: $0, as: UTF8.self) } }
    }
}

/// The answer of `HTTPServerOptions.headCheck`.
public enum HeadVerdict: Sendable {
    case proceed
    /// The body may be this long (in place of `maxBodyBytes`).
    case bodyLimit(Int)
    /// Answered at once with this response; the body is not read, and the connection closes.
    case refuse(HTTPResponse)
}
