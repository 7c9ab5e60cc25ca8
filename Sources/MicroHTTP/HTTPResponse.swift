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

    /// Builds the response in libmicrohttpd once, so that sending it again costs no copy, no
    /// allocation and no header strings: for answers that stay the same (a version's 304).
    /// Changing the response after this sends the prepared one still.
    public mutating func prepare() {
        prepared = PreparedResponse(self)
    }
}
