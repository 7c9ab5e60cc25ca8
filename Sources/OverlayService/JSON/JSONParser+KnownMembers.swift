/// The fast paths of the parser for what nearly every request body is: an object of a few known
/// fields, and short decimal numbers. Each gives exactly what the general reading gives, or
/// declines (nil) and leaves the input to it.
extension JSONParser {
    /// The members of `bytes` when it is an object (after blanks) whose keys are all among `names`
    /// (UTF-8), each given once and written without escapes: (index in `names`, value), in the
    /// order of `names`. Nil for anything else, a syntax error included, which the general reading
    /// (`parseDocument` and the field reader) then reports with its exact message.
    static func knownMembers(_ bytes: [UInt8], names: [[UInt8]]) -> [(name: Int, value: JSONValue)]? {
        var parser = JSONParser(bytes: bytes)
        parser.skipWhitespace()
        guard parser.current == UInt8(ascii: "{"), names.count <= 64 else { return nil }
        do throws(JSONSyntaxError) {
            return try parser.knownMembers(names)
        } catch {
            return nil
        }
    }

    private mutating func knownMembers(_ names: [[UInt8]]) throws(JSONSyntaxError) -> [(name: Int, value: JSONValue)]? {
        try nest()
        index += 1
        var members: [(name: Int, value: JSONValue)] = []
        members.reserveCapacity(4)
        var seen: UInt64 = 0
        skipWhitespace()
        if current == UInt8(ascii: "}") {
            index += 1
        } else {
            members: while true {
                skipWhitespace()
                // A key given twice is the general parser's error to report.
                guard let name = knownKey(names), seen & (1 << UInt64(name)) == 0 else { return nil }
                seen |= 1 << UInt64(name)
                skipWhitespace()
                guard current == UInt8(ascii: ":") else { return nil }
                index += 1
                skipWhitespace()
                // Moved back into the order of `names`, which is the order their rules apply in.
                members.append((name, try value()))
                var place = members.count - 1
                while place > 0 && members[place - 1].name > name {
                    members.swapAt(place - 1, place)
                    place -= 1
                }
                skipWhitespace()
                switch current {
                case UInt8(ascii: ","): index += 1
                case UInt8(ascii: "}"):
                    index += 1
                    break members
                default: return nil
                }
            }
        }
        depth -= 1
        skipWhitespace()
        return index == bytes.count ? members : nil
    }

    /// The key at `index` (a quoted ASCII name without escapes) as its place in `names`, moving
    /// past it; nil for any other key.
    private mutating func knownKey(_ names: [[UInt8]]) -> Int? {
        guard current == UInt8(ascii: "\"") else { return nil }
        let start = index + 1
        var end = start
        while end < bytes.count, bytes[end] != UInt8(ascii: "\""), bytes[end] != UInt8(ascii: "\\"),
            bytes[end] >= 0x20, bytes[end] < 0x80
        {
            end += 1
        }
        guard end < bytes.count, bytes[end] == UInt8(ascii: "\"") else { return nil }
        let length = end - start
        let found = bytes.withUnsafeBufferPointer { body -> Int? in
            names.firstIndex { name in
                name.count == length
                    && name.withUnsafeBufferPointer { name in
                        (0..<length).allSatisfy { name[$0] == body[start + $0] }
                    }
            }
        }
        guard let found else { return nil }
        index = end + 1
        return found
    }

    /// Powers of ten that a Double holds exactly.
    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
        1e19, 1e20, 1e21, 1e22,
    ]

    /// The number just scanned (from `start` to `index`, its syntax checked), computed without
    /// text when at most 15 digits and a power of ten up to 22 make it: both are exact Doubles,
    /// and one correctly rounded multiplication or division gives what `Double(text)` does
    /// (Clinger's fast path). Nil for the rest, which `Double(text)` reads.
    func exactValue(from start: Int) -> Double? {
        var position = start
        let negative = bytes[position] == UInt8(ascii: "-")
        if negative { position += 1 }
        var mantissa: UInt64 = 0
        var digitCount = 0
        var exponent = 0
        var inFraction = false
        while position < index {
            let byte = bytes[position]
            if isDigit(byte) {
                mantissa = mantissa &* 10 &+ UInt64(byte &- UInt8(ascii: "0"))
                digitCount += 1
                if inFraction { exponent -= 1 }
            } else if byte == UInt8(ascii: ".") {
                inFraction = true
            } else {
                break
            }
            position += 1
        }
        guard digitCount <= 15 else { return nil }
        if position < index {  // e or E, a sign, digits
            position += 1
            var exponentNegative = false
            if bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-") {
                exponentNegative = bytes[position] == UInt8(ascii: "-")
                position += 1
            }
            guard index - position <= 3 else { return nil }
            var written = 0
            while position < index {
                written = written * 10 + Int(bytes[position] &- UInt8(ascii: "0"))
                position += 1
            }
            exponent += exponentNegative ? -written : written
        }
        guard exponent >= -22 && exponent <= 22 else { return nil }
        let value =
            exponent < 0
            ? Double(mantissa) / JSONParser.exactPowersOfTen[-exponent]
            : Double(mantissa) * JSONParser.exactPowersOfTen[exponent]
        return negative ? -value : value
    }
}
