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
    ///
    /// `dated`: the response carries the Date of the moment it is built (when it is first sent),
    /// for one sent to many at once (a fan-out) that is let go of right after. Otherwise each send
    /// gets the Date of its own moment, from libmicrohttpd.
    public mutating func prepare(dated: Bool = false) {
        prepared = PreparedResponse(self, dated: dated)
    }
}
