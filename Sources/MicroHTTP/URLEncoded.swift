/// `application/x-www-form-urlencoded`, the one decoding of query strings and form bodies: pairs
/// joined by `&`, a name and a value split at the first `=`, each `+` a space and each `%XX` the
/// byte it names. The bytes come out as they are, so that what is not UTF-8 (`%FF`) or holds a
/// NUL (`%00`) is the reader's to judge, the same way for a query as for a body.
public enum URLEncoded {
    /// The pairs of `bytes` in order; empty pairs (`a=1&&b=2`) are skipped, and a pair without
    /// `=` has a nil value (a bare `?immediate`). A `%` not followed by two hex digits stays as it is.
    public static func pairs<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [(name: [UInt8], value: [UInt8]?)]
    where Bytes.Index == Int {
        var pairs: [(name: [UInt8], value: [UInt8]?)] = []
        var start = bytes.startIndex
        while start < bytes.endIndex {
            let end = bytes[start...].firstIndex(of: UInt8(ascii: "&")) ?? bytes.endIndex
            if end > start {
                let pair = bytes[start..<end]
                if let equals = pair.firstIndex(of: UInt8(ascii: "=")) {
                    pairs.append((decode(pair[..<equals]), decode(pair[(equals + 1)...])))
                } else {
                    pairs.append((decode(pair), nil))
                }
            }
            start = end + 1
        }
        return pairs
    }

    /// One name or value, decoded. Text without `+` or `%` is copied as it is.
    public static func decode<Bytes: Collection<UInt8>>(_ bytes: Bytes) -> [UInt8] where Bytes.Index == Int {
        guard bytes.contains(where: { $0 == UInt8(ascii: "%") || $0 == UInt8(ascii: "+") }) else { return Array(bytes) }
        var decoded: [UInt8] = []
        decoded.reserveCapacity(bytes.count)
        var index = bytes.startIndex
        while index < bytes.endIndex {
            let byte = bytes[index]
            if byte == UInt8(ascii: "+") {
                decoded.append(UInt8(ascii: " "))
            } else if byte == UInt8(ascii: "%"), index + 2 < bytes.endIndex, let high = hexValue(bytes[index + 1]),
                let low = hexValue(bytes[index + 2])
            {
                decoded.append(high << 4 | low)
                index += 2
            } else {
                decoded.append(byte)
            }
            index += 1
        }
        return decoded
    }

    /// Whether `body` is pairs that all have a `=` and whose every `%` starts an escape of two hex
    /// digits: a body that is an URL-encoded form, rather than text sent with the form's type (what
    /// `curl -d hello` sends) that a lenient decoder would make a field of.
    public static func isForm(_ body: [UInt8]) -> Bool {
        var index = 0
        var pairStarted = false
        var pairHasEquals = false
        while index < body.count {
            switch body[index] {
            case UInt8(ascii: "&"):
                if pairStarted && !pairHasEquals { return false }
                pairStarted = false
                pairHasEquals = false
            case UInt8(ascii: "="):
                pairStarted = true
                pairHasEquals = true
            case UInt8(ascii: "%"):
                guard index + 2 < body.count, hexValue(body[index + 1]) != nil, hexValue(body[index + 2]) != nil else {
                    return false
                }
                pairStarted = true
                index += 2
            default:
                pairStarted = true
            }
            index += 1
        }
        return !pairStarted || pairHasEquals
    }

    static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case UInt8(ascii: "0")...UInt8(ascii: "9"): byte - UInt8(ascii: "0")
        case UInt8(ascii: "a")...UInt8(ascii: "f"): byte - UInt8(ascii: "a") + 10
        case UInt8(ascii: "A")...UInt8(ascii: "F"): byte - UInt8(ascii: "A") + 10
        default: nil
        }
    }
}
