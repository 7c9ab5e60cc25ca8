import OverlayEngine

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
    /// Where `slot(_:base:)` left gaps: byte offsets, with the caller's tag and number for each.
    public private(set) var slots: [(offset: Int, tag: Int, base: Double)] = []

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

    /// How many bytes have been written.
    public var byteCount: Int { count }

    /// A point to go back to: what was written, and whether a comma comes next.
    public struct Mark {
        fileprivate let count: Int
        fileprivate let needsComma: Bool
        fileprivate let slots: Int
    }

    public var mark: Mark { Mark(count: count, needsComma: needsComma, slots: slots.count) }

    /// Forgets what was written since `mark`: for a value that turned out not to fit.
    public mutating func rewind(to mark: Mark) {
        count = mark.count
        needsComma = mark.needsComma
        slots.removeLast(slots.count - mark.slots)
    }

    @inline(__always)
    private mutating func reserve(_ extra: Int) {
        if count + extra > capacity { grow(extra) }
    }

    @inline(never)
    private mutating func grow(_ extra: Int) {
        let grown = max(count + extra, capacity * 2)
        let moved = UnsafeMutablePointer<UInt8>.allocate(capacity: grown)
        moved.initialize(from: base, count: count)
        base.deallocate()
        base = moved
        capacity = grown
    }

    @inline(__always)
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

    /// Members written as they are (`"a":null,"b":null`): a run of members whose values are
    /// known in advance, in one append instead of a key and a value each.
    public mutating func members(_ literal: StaticString) {
        separate()
        append(literal)
        needsComma = true
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
    /// `base` is a number the filling needs (a frame's resting y, say).
    public mutating func slot(_ tag: Int, base: Double = 0) {
        separate()
        slots.append((count, tag, base))
        needsComma = true
    }

    /// Bytes appended as they are, with no separator: for filling a template.
    public mutating func raw(_ piece: [UInt8]) {
        append(piece)
    }

    /// Text appended as it is, with no separator: for what frames the JSON (an SSE event's fields).
    public mutating func raw(_ literal: StaticString) {
        append(literal)
    }

    public mutating func rawInteger(_ value: UInt64) {
        appendDigits(value)
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
        } else if !appendShortFraction(value) {
            append(utf8: value.description)
        }
    }

    /// A value of magnitude 0.001 to 1 (a progress, an alpha) written as `Double.description`
    /// writes it (`0.` and the fewest digits that read back as it), without formatting a String:
    /// the first k ≤ 15 for which m / 10^k with m = value·10^k rounded is the value. Both m and
    /// 10^k are exact Doubles, so that division is what reading the digits gives, and at 15
    /// digits and below only one k-digit decimal can read back as the value. False for the rest.
    private mutating func appendShortFraction(_ value: Double) -> Bool {
        let magnitude = abs(value)
        guard magnitude >= 0.001 && magnitude < 1 else { return false }
        var power: Double = 1
        for digits in 1...15 {
            power *= 10
            let scaled = (magnitude * power).rounded()
            guard scaled / power == magnitude else { continue }
            if value < 0 { append(UInt8(ascii: "-")) }
            append(UInt8(ascii: "0"))
            append(UInt8(ascii: "."))
            appendDigits(UInt64(scaled), minimumDigits: digits)
            return true
        }
        return false
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
