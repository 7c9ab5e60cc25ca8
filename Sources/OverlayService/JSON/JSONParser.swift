/// Why a text is not JSON, with the byte offset where reading stopped.
public struct JSONSyntaxError: Error, Hashable, Sendable, CustomStringConvertible {
    public var reason: String
    public var offset: Int

    public var description: String { "\(reason) at byte \(offset)" }
}

/// A strict RFC 8259 parser: no trailing commas, comments, NaN, lone surrogates, control
/// characters in strings, duplicate object keys or invalid UTF-8; nesting at most 64 deep.
/// Written here rather than borrowed from Foundation so that every malformed input gets a precise
/// message, and so that the fuzzer exercises exactly the code that reads requests.
public struct JSONParser {
    public static let maximumDepth = 64

    // Internal rather than private for the extensions in JSONParser+KnownMembers.swift.
    let bytes: [UInt8]
    var index = 0
    var depth = 0

    public static func parse(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONValue {
        switch try parseDocument(bytes) {
        case .object(let members): JSONValue(members: members)
        case .other(let value): value
        }
    }

    /// Like `parse`, but a top-level object comes as its members in order, without the dictionary
    /// (a request body is read once, by name, and has a handful of members).
    public static func parseDocument(_ bytes: [UInt8]) throws(JSONSyntaxError) -> JSONDocument {
        var parser = JSONParser(bytes: bytes)
        // A UTF-8 byte order mark is tolerated, as RFC 8259 §8.1 allows.
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { parser.index = 3 }
        parser.skipWhitespace()
        let document: JSONDocument
        if parser.current == UInt8(ascii: "{") {
            document = .object(try parser.members())
        } else {
            document = .other(try parser.value())
        }
        parser.skipWhitespace()
        guard parser.index == bytes.count else { throw parser.error("unexpected text after the JSON value") }
        return document
    }

    init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private func error(_ reason: String) -> JSONSyntaxError {
        JSONSyntaxError(reason: reason, offset: index)
    }

    var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            index += 1
        }
    }

    mutating func value() throws(JSONSyntaxError) -> JSONValue {
        guard let byte = current else { throw error("unexpected end of input") }
        switch byte {
        case UInt8(ascii: "{"): return try object()
        case UInt8(ascii: "["): return try array()
        case UInt8(ascii: "\""): return .string(try string())
        case UInt8(ascii: "t"): try literal("true"); return .bool(true)
        case UInt8(ascii: "f"): try literal("false"); return .bool(false)
        case UInt8(ascii: "n"): try literal("null"); return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"): return .number(try number())
        default: throw error("unexpected character")
        }
    }

    private mutating func literal(_ word: StaticString) throws(JSONSyntaxError) {
        let expected = UnsafeBufferPointer(start: word.utf8Start, count: word.utf8CodeUnitCount)
        guard bytes.count - index >= expected.count, bytes[index..<index + expected.count].elementsEqual(expected)
        else { throw error("unexpected character") }
        index += expected.count
    }

    mutating func nest() throws(JSONSyntaxError) {
        depth += 1
        if depth > JSONParser.maximumDepth { throw error("nested more than \(JSONParser.maximumDepth) deep") }
    }

    private mutating func object() throws(JSONSyntaxError) -> JSONValue {
        JSONValue(members: try members())
    }

    /// An object's members in the order written; a key given twice is an error.
    private mutating func members() throws(JSONSyntaxError) -> [JSONMember] {
        try nest()
        index += 1
        var members: [JSONMember] = []
        // A request's object has a handful of members: one allocation rather than one per growth.
        members.reserveCapacity(4)
        var keys = NameIndex()
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
            depth -= 1
            return members
        }
        while true {
            skipWhitespace()
            guard current == UInt8(ascii: "\"") else { throw error("expected a string key") }
            let keyOffset = index
            let key = try string()
            skipWhitespace()
            guard current == UInt8(ascii: ":") else { throw error("expected ':' after a key") }
            index += 1
            skipWhitespace()
            let member = try value()
            guard keys.position(of: key, in: members.lazy.map { $0.key }) == nil else {
                throw JSONSyntaxError(reason: "duplicate key \"\(key)\"", offset: keyOffset)
            }
            members.append(JSONMember(key: key, value: member))
            keys.appended(members.lazy.map { $0.key })
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "}"):
                index += 1
                depth -= 1
                return members
            default: throw error("expected ',' or '}'")
            }
        }
    }

    private mutating func array() throws(JSONSyntaxError) -> JSONValue {
        try nest()
        index += 1
        var elements: [JSONValue] = []
        skipWhitespace()
        if current == UInt8(ascii: "]") {
            index += 1
            depth -= 1
            return .array(elements)
        }
        while true {
            skipWhitespace()
            elements.append(try value())
            skipWhitespace()
            switch current {
            case UInt8(ascii: ","): index += 1
            case UInt8(ascii: "]"):
                index += 1
                depth -= 1
                return .array(elements)
            default: throw error("expected ',' or ']'")
            }
        }
    }

    private mutating func number() throws(JSONSyntaxError) -> Double {
        let start = index
        if current == UInt8(ascii: "-") { index += 1 }
        guard let first = current, isDigit(first) else { throw error("expected a digit") }
        if first == UInt8(ascii: "0") {
            index += 1
            if let next = current, isDigit(next) { throw error("leading zeros are not allowed") }
        } else {
            digits()
        }
        if current == UInt8(ascii: ".") {
            index += 1
            guard let next = current, isDigit(next) else { throw error("expected a digit after '.'") }
            digits()
        }
        if current == UInt8(ascii: "e") || current == UInt8(ascii: "E") {
            index += 1
            if current == UInt8(ascii: "+") || current == UInt8(ascii: "-") { index += 1 }
            guard let next = current, isDigit(next) else { throw error("expected a digit in the exponent") }
            digits()
        }
        if let exact = exactValue(from: start) { return exact }
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        // Digits too many for a Double are still JSON (RFC 8259 §6 leaves the range to the
        // reader): ±infinity, which a field refuses as too large (422), as it does the same text
        // in a query. Nothing writes it back: the writer writes a non-finite number as null.
        guard let number = Double(text) else {
            throw JSONSyntaxError(reason: "number out of range", offset: start)
        }
        return number
    }

    func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

    private mutating func digits() {
        while let byte = current, isDigit(byte) { index += 1 }
    }

    private mutating func string() throws(JSONSyntaxError) -> String {
        index += 1
        // Most strings hold no escape: find the closing quote and take the bytes at once.
        var end = index
        var highBits: UInt8 = 0
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"),
            bytes[end] >= 0x20
        {
            highBits |= bytes[end]
            end += 1
        }
        if end < bytes.count, bytes[end] == UInt8(ascii: "\"") {
            let start = index
            index = end + 1
            // ASCII is valid UTF-8 as it is; anything else is validated.
            if highBits < 0x80 { return String(decoding: bytes[start..<end], as: UTF8.self) }
            guard let text = String(validating: bytes[start..<end], as: UTF8.self) else {
                throw error("invalid UTF-8 in a string")
            }
            return text
        }
        var utf8 = Array(bytes[index..<end])
        index = end
        while true {
            guard let byte = current else { throw error("unterminated string") }
            switch byte {
            case UInt8(ascii: "\""):
                index += 1
                guard let text = String(validating: utf8, as: UTF8.self) else {
                    throw error("invalid UTF-8 in a string")
                }
                return text
            case UInt8(ascii: "\\"):
                index += 1
                try escape(into: &utf8)
            case 0x00..<0x20:
                throw error("control character in a string (escape it)")
            default:
                utf8.append(byte)
                index += 1
            }
        }
    }

    private mutating func escape(into utf8: inout [UInt8]) throws(JSONSyntaxError) {
        guard let byte = current else { throw error("unterminated escape") }
        index += 1
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): utf8.append(byte)
        case UInt8(ascii: "b"): utf8.append(0x08)
        case UInt8(ascii: "f"): utf8.append(0x0C)
        case UInt8(ascii: "n"): utf8.append(0x0A)
        case UInt8(ascii: "r"): utf8.append(0x0D)
        case UInt8(ascii: "t"): utf8.append(0x09)
        case UInt8(ascii: "u"):
            var scalar = try hex4()
            if (0xD800...0xDBFF).contains(scalar) {
                guard current == UInt8(ascii: "\\"), index + 1 < bytes.count, bytes[index + 1] == UInt8(ascii: "u")
                else { throw error("lone surrogate in \\u escape") }
                index += 2
                let low = try hex4()
                guard (0xDC00...0xDFFF).contains(low) else { throw error("lone surrogate in \\u escape") }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if (0xDC00...0xDFFF).contains(scalar) {
                throw error("lone surrogate in \\u escape")
            }
            utf8.append(contentsOf: Unicode.Scalar(scalar).map { Array(String($0).utf8) } ?? [])
        default:
            throw error("unknown escape")
        }
    }

    private mutating func hex4() throws(JSONSyntaxError) -> UInt32 {
        guard bytes.count - index >= 4 else { throw error("short \\u escape") }
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = bytes[index]
            let digit: UInt8
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = byte - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = byte - UInt8(ascii: "a") + 10
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = byte - UInt8(ascii: "A") + 10
            default: throw error("bad hex digit in \\u escape")
            }
            value = value << 4 | UInt32(digit)
            index += 1
        }
        return value
    }
}
