/// An `If-None-Match` header as the overlay's versions read it: the one parser of entity tags.
///
/// overlayd's tags are `W/"<version>"`. Comparison is weak (RFC 9110 §13.1.2): `"7"` and `W/"7"`
/// name the same version; `*` matches any. Tags that name no version are kept out of the
/// comparison but do not make the header invalid.
enum EntityTagCondition: Equatable, Sendable {
    /// Exactly one tag, naming a version: the common conditional GET, read without allocating.
    case version(UInt64)
    /// Anything else: the versions named, in order, and whether `*` was among them.
    case list(versions: [UInt64], any: Bool)

    init(_ header: String) {
        var header = header
        self = header.withUTF8 { bytes -> EntityTagCondition in
            var versions: [UInt64] = []
            var any = false
            var elements = 0
            var start = 0
            while start <= bytes.count {
                var end = start
                while end < bytes.count && bytes[end] != UInt8(ascii: ",") { end += 1 }
                let tag = EntityTagCondition.tag(bytes, start, end)
                if tag != .empty { elements += 1 }
                switch tag {
                case .version(let version):
                    if elements == 1 && end == bytes.count { return .version(version) }
                    versions.append(version)
                case .any: any = true
                case .empty, .other: break
                }
                start = end + 1
            }
            return .list(versions: versions, any: any)
        }
    }

    /// Whether the header names `version` (or `*`): a GET of that version answers 304.
    func matches(_ version: UInt64) -> Bool {
        switch self {
        case .version(let named): named == version
        case .list(let versions, let any): any || versions.contains(version)
        }
    }

    /// The version a long-poll with this header waits to see change: the first one named.
    var firstVersion: UInt64? {
        switch self {
        case .version(let version): version
        case .list(let versions, _): versions.first
        }
    }

    private enum Tag: Equatable {
        case empty, any, other
        case version(UInt64)
    }

    /// The tag in `bytes[start..<end]`, blanks around it allowed.
    private static func tag(_ bytes: UnsafeBufferPointer<UInt8>, _ start: Int, _ end: Int) -> Tag {
        var start = start
        var end = end
        while start < end && (bytes[start] == 0x20 || bytes[start] == 0x09) { start += 1 }
        while end > start && (bytes[end - 1] == 0x20 || bytes[end - 1] == 0x09) { end -= 1 }
        if start == end { return .empty }
        if end - start == 1 && bytes[start] == UInt8(ascii: "*") { return .any }
        if end - start >= 2 && bytes[start] == UInt8(ascii: "W") && bytes[start + 1] == UInt8(ascii: "/") {
            start += 2
        }
        guard end - start >= 3, bytes[start] == UInt8(ascii: "\""), bytes[end - 1] == UInt8(ascii: "\"") else {
            return .other
        }
        var version: UInt64 = 0
        for index in (start + 1)..<(end - 1) {
            let byte = bytes[index]
            guard byte >= 0x30 && byte <= 0x39 else { return .other }
            let (times, overflow) = version.multipliedReportingOverflow(by: 10)
            let (sum, carry) = times.addingReportingOverflow(UInt64(byte - 0x30))
            guard !overflow && !carry else { return .other }
            version = sum
        }
        return .version(version)
    }
}
