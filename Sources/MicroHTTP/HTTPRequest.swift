/// An HTTP request as the application sees it: decoded, complete, and free of C.
///
/// A request from the server reads its headers from libmicrohttpd through `ConnectionHeaders`,
/// and only while its handler runs; one built by hand (tests) carries them. Everything else is read the same way for both.
public struct HTTPRequest: Sendable {
    public var method: String
    /// The path, percent-decoded, without the query string.
    public var path: String
    /// Query arguments in order, percent-decoded; a name without `=` has a `nil` value.
    public var query: [QueryItem]
    public var body: [UInt8]
    /// The peer's address, as text (for logs and per-client limits).
    public var remoteAddress: String {
        get {
            switch headers {
            case .list(_, let address): address
            case .connection(let headers): headers.address
            }
        }
        set {
            if case .list(let list, _) = headers { headers = .list(list, address: newValue) }
        }
    }

    private enum Headers: Sendable {
        case list([Header], address: String)
        /// The live connection's headers and address, valid while the handler runs.
        case connection(ConnectionHeaders)
    }

    private var headers: Headers

    public init(
        method: String, path: String, query: [QueryItem] = [], headers: [Header] = [], body: [UInt8] = [],
        remoteAddress: String = ""
    ) {
        self.method = method
        self.path = path
        self.query = query
        self.headers = .list(headers, address: remoteAddress)
        self.body = body
    }

    /// The request of a context from the server, its query decoded.
    init(_ context: RequestContext) {
        method = context.method
        path = context.path
        query = context.rawQuery.isEmpty ? [] : QueryItem.items(of: context.rawQuery)
        body = context.body.bytes
        headers = .connection(ConnectionHeaders(context))
    }

    /// The first header with this name, compared without regard to case. For a request from the
    /// server, only while its handler runs. Invalid UTF-8 is repaired (U+FFFD).
    public func header(_ name: String) -> String? {
        withHeader(name) { $0.map { String(decoding: $0, as: UTF8.self) } }
    }

    /// `header(_:)` as bytes, for a reader that needs no String of its own (nil: no such header).
    /// The bytes are valid only inside `body`.
    public func withHeader<Result>(_ name: String, _ body: (UnsafeRawBufferPointer?) -> Result) -> Result {
        switch headers {
        case .connection(let headers):
            return headers.withHeader(name, body)
        case .list(let list, _):
            guard
                var value = list.first(where: {
                    $0.name.utf8.count == name.utf8.count && $0.name.lowercased() == name.lowercased()
                })?.value
            else { return body(nil) }
            return value.withUTF8 { body(UnsafeRawBufferPointer($0)) }
        }
    }

    /// The content coding the body is declared in (RFC 9110 §8.4) when it is not identity: the
    /// value of the first `Content-Encoding` field naming another (`gzip`, `gzip, identity`). Nil
    /// with none, or only `identity` or empty ones, so that a reader refuses what it cannot decode.
    /// For a request from the server, only while its handler runs.
    public var contentCoding: String? {
        switch headers {
        case .connection(let headers):
            // Found by the server's walk over the head (`HeaderWalk`), not looked up.
            return headers.contentCoding
        case .list(let list, _):
            for header in list where header.name.utf8.count == 16 && header.name.lowercased() == "content-encoding" {
                var value = header.value
                if !value.withUTF8({ HeaderWalk.namesNoCoding(UnsafeRawBufferPointer($0)) }) { return value }
            }
            return nil
        }
    }

    /// The body's form fields: `multipart/form-data`, or `application/x-www-form-urlencoded`,
    /// which a request that names no type is taken to be. Nil when the body is not a well-formed
    /// form of its type, or has another type.
    public func formFields() -> [FormField]? {
        switch withHeader("Content-Type", MediaType.kind(of:)) {
        case .unnamedOrForm:
            guard URLEncoded.isForm(body) else { return nil }
            return URLEncoded.pairs(body).map {
                FormField(name: String(decoding: $0.name, as: UTF8.self), value: $0.value ?? [])
            }
        case .multipart:
            guard let boundary = header("Content-Type").flatMap(MultipartForm.boundary(of:)) else { return nil }
            return MultipartForm.fields(body, boundary: boundary)
        case .json, .text, .other:
            return nil
        }
    }
}
