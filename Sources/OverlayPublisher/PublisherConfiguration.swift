/// Where and how the publisher sends.
public struct PublisherConfiguration: Hashable, Sendable {
    /// The endpoint's URL with `{channel}` where the channel's name goes, such as
    /// `http://127.0.0.1:8090/pub/{channel}`.
    public var urlTemplate: String
    /// Versions that may wait per channel; the oldest gives way to a newer one. While the
    /// endpoint fails, each channel keeps only its newest.
    public var queueDepth = 16
    /// Seconds a request may take, connecting included.
    public var timeout = 2.0
    /// Seconds to connect.
    public var connectTimeout = 1.0
    /// The first pause after a failed request; each further failure doubles it up to `maximumRetryDelay`.
    public var initialRetryDelay = 0.05
    public var maximumRetryDelay = 5.0

    public init(urlTemplate: String) {
        self.urlTemplate = urlTemplate
    }

    /// The placeholder a template must hold.
    public static let placeholder = "{channel}"

    /// Why `template` cannot be used, or nil if it can: an http or https URL, with `{channel}`
    /// once, and nothing a URL may not hold (spaces, control characters, quotes).
    public static func problem(with template: String) -> String? {
        let lower = template.lowercased()
        guard lower.hasPrefix("http://") || lower.hasPrefix("https://") else {
            return "must be an http:// or https:// URL"
        }
        guard template.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F && $0 != UInt8(ascii: "\"") }) else {
            return "must be a URL without spaces, quotes or non-ASCII characters"
        }
        let parts = template.pieces(around: placeholder)
        guard parts.count == 2 else { return "must hold \(placeholder) exactly once" }
        let host = template.split(separator: "/", omittingEmptySubsequences: false).dropFirst(2).first ?? ""
        guard !host.isEmpty, !host.contains(placeholder) else { return "must name a host before \(placeholder)" }
        return nil
    }

    /// The URL for `channel`: its name percent-encoded as a path segment, so that whatever a
    /// name holds stays inside the segment `{channel}` stands for (a valid name, which is never
    /// `.` or `..`, encodes as itself).
    func url(for channel: String) -> String {
        let parts = urlTemplate.pieces(around: PublisherConfiguration.placeholder)
        return parts.count == 2 ? parts[0] + Self.pathSegment(channel) + parts[1] : urlTemplate
    }

    /// `text` percent-encoded but for RFC 3986's unreserved characters; `.` and `..` whole, as
    /// they would otherwise be dot segments.
    static func pathSegment(_ text: String) -> String {
        if text == "." || text == ".." { return String(repeating: "%2E", count: text.count) }
        var encoded = ""
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "A")...UInt8(ascii: "Z"), UInt8(ascii: "a")...UInt8(ascii: "z"),
                UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "."), UInt8(ascii: "_"),
                UInt8(ascii: "~"):
                encoded.unicodeScalars.append(Unicode.Scalar(byte))
            default:
                let hex = Array("0123456789ABCDEF".utf8)
                encoded += "%" + String(decoding: [hex[Int(byte >> 4)], hex[Int(byte & 0x0F)]], as: UTF8.self)
            }
        }
        return encoded
    }
}

extension String {
    /// The text before, between and after each occurrence of `separator`.
    fileprivate func pieces(around separator: String) -> [String] {
        var parts: [String] = []
        var rest = Substring(self)
        while let range = rest.firstRange(of: separator) {
            parts.append(String(rest[..<range.lowerBound]))
            rest = rest[range.upperBound...]
        }
        parts.append(String(rest))
        return parts
    }
}
