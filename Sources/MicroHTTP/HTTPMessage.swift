/// An HTTP request as the application sees it: decoded, complete, and free of C.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path, percent-decoded, without the query string.
    public var path: String
    /// Query arguments in order, percent-decoded; a name without `=` has a `nil` value.
    public var query: [QueryItem]
    public var headers: [Header]
    public var body: [UInt8]
    /// The body was longer than the server's limit; `body` holds only its start.
    public var bodyTooLarge: Bool
    /// The peer's address, as text (for logs and per-client limits).
    public var remoteAddress: String

    public init(
        method: String, path: String, query: [QueryItem] = [], headers: [Header] = [], body: [UInt8] = [],
        bodyTooLarge: Bool = false, remoteAddress: String = ""
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = headers
        self.body = body
        self.bodyTooLarge = bodyTooLarge
        self.remoteAddress = remoteAddress
    }

    /// The first header with this name, compared without regard to case.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.utf8.count == name.utf8.count && $0.name.lowercased() == name.lowercased() }?.value
    }
}

public struct QueryItem: Hashable, Sendable {
    public var name: String
    public var value: String?

    public init(name: String, value: String?) {
        self.name = name
        self.value = value
    }
}

public struct Header: Hashable, Sendable {
    public var name: String
    public var value: String

    public init(name: String, value: String) {
        self.name = name
        self.value = value
    }
}

/// An HTTP response: status, headers and a complete body.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [Header]
    public var body: [UInt8]

    public init(status: Int, headers: [Header] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// One finished request, for the access log.
public struct HTTPExchange: Sendable {
    public var method: String
    public var path: String
    /// 0 when the connection ended before a response was sent.
    public var status: Int
    /// The length of the response body.
    public var bytes: Int
    public var microseconds: Int64
    public var remoteAddress: String
}
