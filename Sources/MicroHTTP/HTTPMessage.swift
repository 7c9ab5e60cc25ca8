/// An HTTP request as the application sees it: decoded, complete, and free of C.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path, percent-decoded, without the query string.
    public var path: String
    /// Query arguments in order, percent-decoded; a name without `=` has a `nil` value.
    public var query: [QueryItem]
    /// Headers given when the request was built by hand (tests); a request from the server looks
    /// its headers up in libmicrohttpd instead, through `header(_:)`.
    public var headers: [Header]
    public var body: [UInt8]
    /// The body was longer than the server's limit; `body` holds only its start.
    public var bodyTooLarge: Bool
    /// The peer's address, as text (for logs and per-client limits).
    public var remoteAddress: String {
        get { lookup?.lookedUpAddress ?? givenAddress }
        set { givenAddress = newValue }
    }
    private var givenAddress: String
    /// The live connection's headers, valid while the handler runs.
    var lookup: HTTPResponder?

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
        self.givenAddress = remoteAddress
    }

    /// A request from the server: headers and the address are looked up through `lookup`.
    init(method: String, path: String, query: [QueryItem], body: [UInt8], bodyTooLarge: Bool, lookup: HTTPResponder) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = []
        self.body = body
        self.bodyTooLarge = bodyTooLarge
        self.givenAddress = ""
        self.lookup = lookup
    }

    /// The first header with this name, compared without regard to case. For a request from the
    /// server, only while its handler runs.
    public func header(_ name: String) -> String? {
        if let lookup { return lookup.header(name) }
        return headers.first { $0.name.utf8.count == name.utf8.count && $0.name.lowercased() == name.lowercased() }?
            .value
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
    public let name: String
    public let value: String
    /// "name: value" as libmicrohttpd takes it: two NUL-terminated C strings, made once. Passing a
    /// Swift string to C copies it into a fresh array on every call; a header kept in a static or
    /// a per-version cache pays that once.
    let cName: ContiguousArray<CChar>
    let cValue: ContiguousArray<CChar>

    public init(name: String, value: String) {
        self.name = name
        self.value = value
        self.cName = name.utf8CString
        self.cValue = value.utf8CString
    }

    private init(name: String, cName: ContiguousArray<CChar>, value: String) {
        self.name = name
        self.value = value
        self.cName = cName
        self.cValue = value.utf8CString
    }

    /// A header of the same name with another value; the name's C string is shared, not made again.
    public func with(value: String) -> Header {
        Header(name: name, cName: cName, value: value)
    }

    public static func == (lhs: Header, rhs: Header) -> Bool { lhs.name == rhs.name && lhs.value == rhs.value }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(value)
    }
}

/// Calls `body` with `text` as a NUL-terminated C string on the stack: no heap copy.
func withCString<T>(_ text: String, _ body: (UnsafePointer<CChar>) -> T) -> T {
    var text = text
    return text.withUTF8 { utf8 in
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: utf8.count + 1) { buffer in
            utf8.withMemoryRebound(to: CChar.self) { source in
                _ = buffer.initialize(fromContentsOf: source)
            }
            buffer[utf8.count] = 0
            return body(buffer.baseAddress!)
        }
    }
}

/// An HTTP response: status, headers and a complete body.
public struct HTTPResponse: Sendable {
    public var status: Int
    public var headers: [Header]
    public var body: [UInt8]
    /// The response already built in libmicrohttpd, for one sent many times (`prepare()`).
    var prepared: PreparedResponse?

    public init(status: Int, headers: [Header] = [], body: [UInt8] = []) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Builds the response in libmicrohttpd once (when it is first sent), so that sending it again
    /// costs no copy, no allocation and no header strings: for answers that stay the same (a
    /// version's 304). Changing the response after this sends the prepared one still.
    public mutating func prepare() {
        prepared = PreparedResponse(self)
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
