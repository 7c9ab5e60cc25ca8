#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// A request as the client sends it.
public struct HTTPRequest: Hashable, Sendable {
    public var method: String
    public var url: URL
    /// Header fields, by name; a transport adds only what HTTP itself needs (Host, length).
    public var headers: [String: String]
    public var body: Data?
    /// Seconds the answer may stay without a byte (to its head, or between pieces of its body)
    /// before the request is given up as `OverlayClientError.timedOut`.
    public var timeout: Double

    public init(method: String, url: URL, headers: [String: String] = [:], body: Data? = nil, timeout: Double) {
        self.method = method
        self.url = url
        self.headers = headers
        self.body = body
        self.timeout = timeout
    }
}

/// The status line and header fields of an answer.
public struct HTTPResponseHead: Hashable, Sendable {
    public var status: Int
    /// Header fields by lower-case name; a field that came more than once is joined with ", ".
    public private(set) var headers: [String: String]

    public init(status: Int, headers: [String: String] = [:]) {
        self.status = status
        self.headers = [:]
        for (name, value) in headers { add(name, value) }
    }

    /// The value of the header field `name`, in any case.
    public func value(_ name: String) -> String? {
        headers[name.lowercased()]
    }

    /// Adds a field as HTTP combines repeated ones.
    public mutating func add(_ name: String, _ value: String) {
        let name = name.lowercased()
        if let previous = headers[name] {
            headers[name] = previous + ", " + value
        } else {
            headers[name] = value
        }
    }
}
