/// A response as the tests read it: status, headers in order, and the body (de-chunked).
public struct HTTPReply: Sendable {
    public var status: Int
    public var headers: [(name: String, value: String)]
    public var body: [UInt8]

    public init(status: Int, headers: [(name: String, value: String)], body: [UInt8]) {
        self.status = status
        self.headers = headers
        self.body = body
    }

    /// The first header named `name`, whatever its case.
    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    public var text: String { String(decoding: body, as: UTF8.self) }

    /// The first response in `raw`: its head, then its body as its framing says (chunks decoded,
    /// a Content-Length cut), or whatever follows the head when neither is given.
    public static func parse(_ raw: [UInt8]) throws -> HTTPReply {
        guard let end = Bytes.index(of: Bytes.headEnd, in: raw) else {
            throw TestSupportError(
                "no response head in \(raw.count) bytes: \(String(decoding: raw.prefix(200), as: UTF8.self))")
        }
        var reply = try head(raw[..<end])
        let rest = Array(raw[(end + 4)...])
        if reply.header("Transfer-Encoding")?.lowercased() == "chunked" {
            reply.body = dechunk(rest)
        } else if let length = reply.header("Content-Length").flatMap({ Int($0) }) {
            reply.body = Array(rest.prefix(length))
        } else {
            reply.body = rest
        }
        return reply
    }

    /// The status line and headers (without the blank line), and no body.
    public static func head(_ bytes: ArraySlice<UInt8>) throws -> HTTPReply {
        let lines = String(decoding: bytes, as: UTF8.self).split(separator: "\r\n", omittingEmptySubsequences: false)
        let parts = lines.first?.split(separator: " ") ?? []
        guard parts.count >= 2, let status = Int(parts[1]) else {
            throw TestSupportError("bad status line \"\(lines.first ?? "")\"")
        }
        let headers = lines.dropFirst().compactMap { line -> (name: String, value: String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), trimmed(line[line.index(after: colon)...]))
        }
        return HTTPReply(status: status, headers: headers, body: [])
    }

    /// The data of a chunked body, as far as it is complete.
    public static func dechunk(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while let lineEnd = Bytes.index(of: Bytes.crlf, in: bytes, from: index) {
            let sizeText = String(decoding: bytes[index..<lineEnd], as: UTF8.self)
            guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16), size > 0 else { break }
            let start = lineEnd + 2
            guard start + size <= bytes.count else { break }
            out += bytes[start..<(start + size)]
            index = start + size + 2
        }
        return out
    }

    private static func trimmed(_ value: Substring) -> String {
        String(value.drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}
