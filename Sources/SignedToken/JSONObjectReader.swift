/// A strict reader of one JSON object (RFC 8259): what a token's header and payload must be.
///
/// Strict where libjwt's JSON library (jansson) is, and stricter where leniency would let two
/// readers see different things: valid UTF-8 only, nothing after the object (jansson stops at a
/// NUL, so `{"alg":"HS256"}\0…` would be a header to it), no name twice in any object (jansson keeps
/// the last, other readers the first), no `\u0000`, no lone surrogate, integers within 64 bits
/// and reals within a Double (jansson refuses the others), at most 32 levels deep.
struct JSONObjectReader {
    /// A top-level member's value as far as the verifier cares: a string's text, or something else.
    enum Value: Equatable {
        case string(String)
        /// A number written as an integer (no fraction, no exponent), within 64 bits.
        case integer(Int64)
        case other
    }

    /// Deep enough for any claims; shallow enough that recursion cannot exhaust a thread's stack.
    static let maximumDepth = 32

    private let bytes: [UInt8]
    private var index = 0

    private init(_ bytes: [UInt8]) {
        self.bytes = bytes
    }

    /// The members of the object that is the whole of `bytes` (whitespace around it aside), or nil
    /// if `bytes` is anything else.
    static func members(of bytes: [UInt8]) -> [String: Value]? {
        guard String(validating: bytes, as: UTF8.self) != nil else { return nil }
        var reader = JSONObjectReader(bytes)
        reader.skipWhitespace()
        var members: [String: Value] = [:]
        let isObject = reader.readObject(depth: 1) { name, reader in
            if reader.peek == UInt8(ascii: "\"") {
                guard let text = reader.readString() else { return false }
                members[name] = .string(text)
                return true
            }
            let start = reader.index
            guard reader.skipValue(depth: 2) else { return false }
            let text = reader.bytes[start..<reader.index]
            let isIntegerLiteral = text.allSatisfy {
                $0 == UInt8(ascii: "-") || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0)
            }
            members[name] =
                isIntegerLiteral ? Int64(String(decoding: text, as: UTF8.self)).map(Value.integer) ?? .other : .other
            return true
        }
        reader.skipWhitespace()
        return isObject && reader.index == bytes.count ? members : nil
    }

    private var peek: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = peek, byte == 0x20 || byte == 0x09 || byte == 0x0a || byte == 0x0d { index += 1 }
    }

    private mutating func consume(_ byte: UInt8) -> Bool {
        guard peek == byte else { return false }
        index += 1
        return true
    }

    /// Reads an object, handing each member's name to `readValue`, which reads its value.
    private mutating func readObject(depth: Int, _ readValue: (String, inout JSONObjectReader) -> Bool) -> Bool {
        guard depth <= Self.maximumDepth, consume(UInt8(ascii: "{")) else { return false }
        skipWhitespace()
        if consume(UInt8(ascii: "}")) { return true }
        var names = Set<String>()
        while true {
            skipWhitespace()
            guard let name = readString(), names.insert(name).inserted else { return false }
            skipWhitespace()
            guard consume(UInt8(ascii: ":")) else { return false }
            skipWhitespace()
            guard readValue(name, &self) else { return false }
            skipWhitespace()
            if consume(UInt8(ascii: ",")) { continue }
            return consume(UInt8(ascii: "}"))
        }
    }

    private mutating func skipValue(depth: Int) -> Bool {
        guard depth <= Self.maximumDepth, let byte = peek else { return false }
        switch byte {
        case UInt8(ascii: "{"):
            return readObject(depth: depth) { _, reader in reader.skipValue(depth: depth + 1) }
        case UInt8(ascii: "["):
            index += 1
            skipWhitespace()
            if consume(UInt8(ascii: "]")) { return true }
            while true {
                skipWhitespace()
                guard skipValue(depth: depth + 1) else { return false }
                skipWhitespace()
                if consume(UInt8(ascii: ",")) { continue }
                return consume(UInt8(ascii: "]"))
            }
        case UInt8(ascii: "\""):
            return readString() != nil
        case UInt8(ascii: "t"): return skipLiteral("true")
        case UInt8(ascii: "f"): return skipLiteral("false")
        case UInt8(ascii: "n"): return skipLiteral("null")
        default: return skipNumber()
        }
    }

    private mutating func skipLiteral(_ literal: StaticString) -> Bool {
        let end = index + literal.utf8CodeUnitCount
        guard end <= bytes.count else { return false }
        let matches = literal.withUTF8Buffer { bytes[index..<end].elementsEqual($0) }
        index = end
        return matches
    }

    /// A number by RFC 8259's grammar that jansson can hold: an integer in Int64, a real in a Double.
    private mutating func skipNumber() -> Bool {
        let start = index
        _ = consume(UInt8(ascii: "-"))
        if !consume(UInt8(ascii: "0")) {
            guard let first = peek, (UInt8(ascii: "1")...UInt8(ascii: "9")).contains(first) else { return false }
            skipDigits()
        }
        var isInteger = true
        if consume(UInt8(ascii: ".")) {
            isInteger = false
            guard skipDigits() else { return false }
        }
        if consume(UInt8(ascii: "e")) || consume(UInt8(ascii: "E")) {
            isInteger = false
            _ = consume(UInt8(ascii: "+")) || consume(UInt8(ascii: "-"))
            guard skipDigits() else { return false }
        }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        return isInteger ? Int64(text) != nil : Double(text)?.isFinite == true
    }

    /// Skips the digits at the index; whether there was one.
    @discardableResult
    private mutating func skipDigits() -> Bool {
        let start = index
        while let byte = peek, (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) { index += 1 }
        return index > start
    }

    /// A string's text, escapes resolved; nil for a raw control character, a bad escape, `\u0000`
    /// or a lone surrogate.
    private mutating func readString() -> String? {
        guard consume(UInt8(ascii: "\"")) else { return nil }
        var text: [UInt8] = []
        while let byte = peek {
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                return String(decoding: text, as: UTF8.self)
            case UInt8(ascii: "\\"):
                guard let escaped = readEscape() else { return nil }
                text.append(contentsOf: escaped)
            case ..<0x20:
                return nil
            default:
                text.append(byte)
            }
        }
        return nil
    }

    /// The UTF-8 of the escape after a backslash.
    private mutating func readEscape() -> [UInt8]? {
        guard let byte = peek else { return nil }
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): return [byte]
        case UInt8(ascii: "b"): return [0x08]
        case UInt8(ascii: "f"): return [0x0c]
        case UInt8(ascii: "n"): return [0x0a]
        case UInt8(ascii: "r"): return [0x0d]
        case UInt8(ascii: "t"): return [0x09]
        case UInt8(ascii: "u"): break
        default: return nil
        }
        guard let unit = readHex4(), unit != 0, !(0xdc00...0xdfff).contains(unit) else { return nil }
        var scalar = unit
        if (0xd800...0xdbff).contains(unit) {
            guard consume(UInt8(ascii: "\\")), consume(UInt8(ascii: "u")), let low = readHex4(),
                (0xdc00...0xdfff).contains(low)
            else { return nil }
            scalar = 0x10000 + ((unit - 0xd800) << 10) + (low - 0xdc00)
        }
        guard let character = Unicode.Scalar(scalar) else { return nil }
        return Array(String(character).utf8)
    }

    private mutating func readHex4() -> UInt32? {
        guard index + 4 <= bytes.count else { return nil }
        var value: UInt32 = 0
        for byte in bytes[index..<index + 4] {
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: return nil
            }
            value = value << 4 | UInt32(digit)
        }
        index += 4
        return value
    }
}
