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
    /// The form fields of a request built by hand (`formFields()`); a request from the server
    /// decodes its body on demand instead.
    public var form: [FormField]?

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
    /// Invalid UTF-8 is repaired (U+FFFD), as `String(cString:)` repairs it.
    public func header(_ name: String) -> String? {
        withHeader(name) { $0.map { String(decoding: $0, as: UTF8.self) } }
    }

    /// `header(_:)` as bytes, for a reader that needs no String of its own (nil: no such header).
    /// The bytes are valid only inside `body`.
    public func withHeader<Result>(_ name: String, _ body: (UnsafeRawBufferPointer?) -> Result) -> Result {
        if let lookup { return lookup.withHeader(name, body) }
        guard
            var value = headers.first(where: {
                $0.name.utf8.count == name.utf8.count && $0.name.lowercased() == name.lowercased()
            })?.value
        else { return body(nil) }
        return value.withUTF8 { body(UnsafeRawBufferPointer($0)) }
    }

    /// The body decoded as a form by libmicrohttpd's post processor: `multipart/form-data`, or
    /// `application/x-www-form-urlencoded`, which a request that names no type is taken to be.
    /// Nil when the body is not a well-formed form of its type, or has another type. For a request
    /// from the server, only while its handler runs; a request built by hand answers `form`.
    public func formFields() -> [FormField]? {
        if let lookup { return lookup.formFields(of: body) }
        return form
    }
}
