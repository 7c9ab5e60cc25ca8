import OverlayEngine

/// A parsed JSON value (RFC 8259).
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// A name for the value's type, for error messages.
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension JSONValue {
    /// An object of members whose keys are known to differ.
    init(members: [JSONMember]) {
        var dictionary = [String: JSONValue](minimumCapacity: members.count)
        for member in members { dictionary[member.key] = member.value }
        self = .object(dictionary)
    }
}

/// A member of a JSON object.
public struct JSONMember: Hashable, Sendable {
    public var key: String
    public var value: JSONValue
}

/// A parsed JSON text whose top-level object keeps its members in order (see
/// `JSONParser.parseDocument`).
public enum JSONDocument: Hashable, Sendable {
    case object([JSONMember])
    case other(JSONValue)
}

/// Finds a name among the names of a list that grows at its end (an object's keys, a request's
/// fields), without storing them again. A handful are searched in a line, which hashes nothing;
/// past `linearSearchLimit` a dictionary of positions takes over, so that thousands of names cost
/// no quadratic time.
struct NameIndex {
    static let linearSearchLimit = 16

    private var positions: [String: Int]? = nil

    /// Where `name` is in `names`, the list's names so far.
    func position<Names: RandomAccessCollection<String>>(of name: String, in names: Names) -> Int?
    where Names.Index == Int {
        if let positions { return positions[name] }
        return names.firstIndex(of: name)
    }

    /// To be called after each append to the list, with all its names (the new one last).
    mutating func appended<Names: RandomAccessCollection<String>>(_ names: Names) where Names.Index == Int {
        if positions != nil {
            positions![names[names.count - 1]] = names.count - 1
        } else if names.count > NameIndex.linearSearchLimit {
            positions = Dictionary(uniqueKeysWithValues: zip(names, names.indices))
        }
    }
}

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

    private let bytes: [UInt8]
    private var index = 0
    private var depth = 0

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

    private init(bytes: [UInt8]) {
        self.bytes = bytes
    }

    private func error(_ reason: String) -> JSONSyntaxError {
        JSONSyntaxError(reason: reason, offset: index)
    }

    private var current: UInt8? { index < bytes.count ? bytes[index] : nil }

    private mutating func skipWhitespace() {
        while let byte = current, byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
            index += 1
        }
    }

    private mutating func value() throws(JSONSyntaxError) -> JSONValue {
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

    private mutating func nest() throws(JSONSyntaxError) {
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
        let text = String(decoding: bytes[start..<index], as: UTF8.self)
        guard let number = Double(text), number.isFinite else {
            throw JSONSyntaxError(reason: "number out of range", offset: start)
        }
        return number
    }

    private func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }

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

/// Writes JSON straight into bytes: objects and arrays with their commas, strings escaped, and
/// numbers as the shortest text that reads back as the same Double (integers without ".0").
///
/// The bytes go into a buffer the writer owns and grows itself, so that appending a byte or a short
/// run is a capacity check and a store (an Array checks uniqueness and takes a generic path on
/// every append; a response is a few hundred of them). Not copyable: the buffer has one owner.
public struct JSONWriter: ~Copyable {
    private var base: UnsafeMutablePointer<UInt8>
    private var count = 0
    private var capacity: Int
    private var needsComma = false
    /// Where `slot(_:)` left gaps: byte offsets, with the caller's tag for each.
    public private(set) var slots: [(offset: Int, tag: Int)] = []

    public init(capacity: Int = 512) {
        self.capacity = max(capacity, 16)
        base = .allocate(capacity: self.capacity)
    }

    deinit {
        base.deallocate()
    }

    /// What has been written.
    public var bytes: [UInt8] {
        Array(UnsafeBufferPointer(start: base, count: count))
    }

    private mutating func reserve(_ extra: Int) {
        guard count + extra > capacity else { return }
        let grown = max(count + extra, capacity * 2)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        moved.initialize(from: base, count: count)
        base.deallocate()
        base = moved
        capacity = grown
    }

    private mutating func append(_ byte: UInt8) {
        reserve(1)
        base[count] = byte
        count += 1
    }

    private mutating func append(_ piece: UnsafeBufferPointer<UInt8>) {
        guard let start = piece.baseAddress, !piece.isEmpty else { return }
        reserve(piece.count)
        (base + count).initialize(from: start, count: piece.count)
        count += piece.count
    }

    private mutating func append(_ piece: [UInt8]) {
        piece.withUnsafeBufferPointer { append($0) }
    }

    private mutating func append(_ literal: StaticString) {
        append(UnsafeBufferPointer(start: literal.utf8Start, count: literal.utf8CodeUnitCount))
    }

    private mutating func append(utf8 text: String) {
        var text = text
        text.withUTF8 { append($0) }
    }

    private mutating func separate() {
        if needsComma { append(UInt8(ascii: ",")) }
    }

    public mutating func beginObject() {
        separate()
        append(UInt8(ascii: "{"))
        needsComma = false
    }

    public mutating func endObject() {
        append(UInt8(ascii: "}"))
        needsComma = true
    }

    public mutating func beginArray() {
        separate()
        append(UInt8(ascii: "["))
        needsComma = false
    }

    public mutating func endArray() {
        append(UInt8(ascii: "]"))
        needsComma = true
    }

    /// An object key; the next value written is its value.
    /// An object key; the next value written is its value. Keys are the API's own names, which
    /// need no escaping (a debug build checks).
    public mutating func key(_ name: StaticString) {
        separate()
        append(UInt8(ascii: "\""))
        let utf8 = UnsafeBufferPointer(start: name.utf8Start, count: name.utf8CodeUnitCount)
        assert(!utf8.contains { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") })
        append(utf8)
        append(UInt8(ascii: "\""))
        append(UInt8(ascii: ":"))
        needsComma = false
    }

    /// A key that is not a literal (for values read from JSON), escaped as a string.
    public mutating func key(text name: String) {
        separate()
        appendQuoted(name)
        append(UInt8(ascii: ":"))
        needsComma = false
    }

    public mutating func string(_ text: String) {
        separate()
        appendQuoted(text)
        needsComma = true
    }

    public mutating func number(_ value: Double) {
        separate()
        appendNumber(value)
        needsComma = true
    }

    /// A gap where a value will go, to be filled per use (see `OverlayTemplate`).
    public mutating func slot(_ tag: Int) {
        separate()
        slots.append((count, tag))
        needsComma = true
    }

    /// Bytes appended as they are, with no separator: for filling a template.
    public mutating func raw(_ piece: [UInt8]) {
        append(piece)
    }

    /// A number appended with no separator: for filling a template.
    public mutating func rawNumber(_ value: Double) {
        appendNumber(value)
    }

    /// An instant as seconds, appended with no separator: the same text as `rawNumber` of
    /// `instant.seconds`, written from the integer nanoseconds without formatting a Double where
    /// the two are sure to agree (from 0.0001 s to about 46 days; outside, the Double is printed).
    public mutating func rawSeconds(_ instant: Instant) {
        appendSeconds(nanoseconds: instant.nanoseconds)
    }

    private mutating func appendSeconds(nanoseconds: Int64) {
        guard nanoseconds == 0 || (100_000..<4_000_000_000_000_000).contains(nanoseconds) else {
            appendNumber(Double(nanoseconds) / 1e9)
            return
        }
        appendDigits(UInt64(nanoseconds / 1_000_000_000))
        var fraction = nanoseconds % 1_000_000_000
        guard fraction != 0 else { return }
        var digits = 9
        while fraction % 10 == 0 {
            fraction /= 10
            digits -= 1
        }
        append(UInt8(ascii: "."))
        appendDigits(UInt64(fraction), minimumDigits: digits)
    }

    public mutating func integer<T: BinaryInteger>(_ value: T) {
        separate()
        if let small = Int64(exactly: value) {
            appendInteger(small)
        } else {
            append(utf8: String(value))
        }
        needsComma = true
    }

    /// An instant as seconds: the text `number(instant.seconds)` writes, without formatting a Double.
    public mutating func seconds(_ instant: Instant) {
        separate()
        appendSeconds(nanoseconds: instant.nanoseconds)
        needsComma = true
    }

    /// A length of time as seconds, as `seconds(_: Instant)` writes an instant.
    public mutating func seconds(_ interval: Interval) {
        separate()
        appendSeconds(nanoseconds: interval.nanoseconds)
        needsComma = true
    }

    public mutating func bool(_ value: Bool) {
        separate()
        append(value ? "true" : "false")
        needsComma = true
    }

    public mutating func null() {
        separate()
        append("null")
        needsComma = true
    }

    public mutating func value(_ value: JSONValue) {
        switch value {
        case .null: null()
        case .bool(let flag): bool(flag)
        case .number(let number): self.number(number)
        case .string(let text): string(text)
        case .array(let elements):
            beginArray()
            for element in elements { self.value(element) }
            endArray()
        case .object(let members):
            beginObject()
            for (name, member) in members.sorted(by: { $0.key < $1.key }) {
                key(text: name)
                self.value(member)
            }
            endObject()
        }
    }

    private mutating func appendNumber(_ value: Double) {
        guard value.isFinite else {
            append("null")
            return
        }
        // Integral: no ".0", and never "-0". Up to 2^53 inclusive, Double.description writes an
        // integer with ".0" (1e15 is "1000000000000000.0"); beyond, it uses an exponent.
        if value == value.rounded(.towardZero) && abs(value) <= 9_007_199_254_740_992 {
            appendInteger(Int64(value))
        } else {
            append(utf8: value.description)
        }
    }

    /// Decimal digits straight into the bytes, without making a String.
    private mutating func appendInteger(_ value: Int64) {
        if value < 0 { append(UInt8(ascii: "-")) }
        appendDigits(value.magnitude)
    }

    /// Decimal digits, at least `minimumDigits` of them (zeros in front), written right to left
    /// into a buffer on the stack (division by a constant 10 is a multiplication) and appended once.
    private mutating func appendDigits(_ value: UInt64, minimumDigits: Int = 1) {
        let capacity = 20  // UInt64.max has 20 digits
        withUnsafeTemporaryAllocation(of: UInt8.self, capacity: capacity) { buffer in
            var rest = value
            var start = capacity
            repeat {
                start -= 1
                buffer[start] = UInt8(ascii: "0") + UInt8(rest % 10)
                rest /= 10
            } while rest > 0 || capacity - start < minimumDigits
            append(UnsafeBufferPointer(rebasing: buffer[start..<capacity]))
        }
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    private mutating func appendQuoted(_ text: String) {
        append(UInt8(ascii: "\""))
        // Most texts need no escape at all: copy them whole, from their contiguous UTF-8.
        var text = text
        let copied = text.withUTF8 { utf8 -> Bool in
            guard !utf8.contains(where: { $0 < 0x20 || $0 == UInt8(ascii: "\"") || $0 == UInt8(ascii: "\\") })
            else { return false }
            append(utf8)
            return true
        }
        if copied {
            append(UInt8(ascii: "\""))
            return
        }
        for byte in text.utf8 {
            switch byte {
            case UInt8(ascii: "\""): append(#"\""#)
            case UInt8(ascii: "\\"): append(#"\\"#)
            case 0x0A: append("\\n")
            case 0x0D: append("\\r")
            case 0x09: append("\\t")
            case 0x00..<0x20:
                append("\\u00")
                append(JSONWriter.hexDigits[Int(byte >> 4)])
                append(JSONWriter.hexDigits[Int(byte & 0xF)])
            default: append(byte)
            }
        }
        append(UInt8(ascii: "\""))
    }
}
