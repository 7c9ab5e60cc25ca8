import OverlayEngine
import Testing

@testable import OverlayService

/// The strict JSON reader and the writer that `/overlay` and every answer go through.
@Suite("JSON")
struct JSONTests {
    static func written(_ write: (inout JSONWriter) -> Void) -> String {
        var writer = JSONWriter()
        write(&writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    static func number(_ value: Double) -> String { written { $0.number(value) } }

    /// Numbers as the shortest text that reads back the same; integers without ".0"; never "-0".
    @Test(arguments: [
        (1.125, "1.125"), (-10, "-10"), (0.1, "0.1"), (0.25, "0.25"), (1e-7, "1e-07"), (0, "0"), (-0.0, "0"),
        (768, "768"), (708, "708"), (-20, "-20"), (1, "1"), (300.25, "300.25"), (0.3, "0.3"),
        (123_456_789_012, "123456789012"), (-0.5, "-0.5"),
    ])
    func numberFormatting(value: Double, text: String) throws {
        let written = Self.number(value)
        if value == 1e-7 {
            // Either exponent form is JSON; what matters is that it reads back exactly.
            #expect(["1e-07", "1e-7"].contains(written))
        } else {
            #expect(written == text)
        }
        #expect(try JSONParser.parse(Array(written.utf8)) == .number(value))
        #expect(!written.hasSuffix(".0"))
        #expect(!written.hasPrefix("-0") || written.hasPrefix("-0."))
    }

    /// Non-finite numbers are not JSON: they are written as null.
    @Test func nonFiniteNumbers() {
        #expect(Self.number(.nan) == "null")
        #expect(Self.number(.infinity) == "null")
        #expect(Self.number(-.infinity) == "null")
    }

    /// Every number the writer produces reads back as the same Double.
    @Test func numbersRoundTrip() throws {
        var value = 0.000_123
        for _ in 0..<200 {
            value = value * 1.37 + 0.011
            for candidate in [value, -value, value.rounded(), 1 / value] {
                let text = Self.number(candidate)
                #expect(try JSONParser.parse(Array(text.utf8)) == .number(candidate), "\(text)")
            }
        }
        // Integers up to 2^53 are written whole, without ".0"; beyond, in the shortest round-trip form.
        #expect(Self.number(1e15) == "1000000000000000")
        #expect(Self.number(-9_007_199_254_740_992) == "-9007199254740992")
        #expect(Self.number(1e16) == "1e+16")
        #expect(try JSONParser.parse(Array(Self.number(1e300).utf8)) == .number(1e300))
    }

    /// Instants and intervals are written from their nanoseconds, with the text `number` writes for
    /// their seconds as a Double, across the range where the integer path is taken and beyond it.
    @Test func secondsMatchNumbers() {
        var samples: [Int64] = [0, 1, 99_999, 100_000, 100_001, 1_000_000_000, 1_250_000_000, 123_456_789]
        samples += [3_999_999_999_999_999, 4_000_000_000_000_000, 9_200_000_000_000_000_000, -1, -250_000_000]
        var generator = SystemRandomNumberGenerator()
        for digits in 5...18 {
            let top = Int64(pow10(digits))
            for _ in 0..<200 { samples.append(Int64.random(in: 0..<top, using: &generator)) }
        }
        for nanoseconds in samples {
            let instant = Instant(nanoseconds: nanoseconds)
            let expected = Self.number(instant.seconds)
            #expect(Self.written { $0.seconds(instant) } == expected, "\(nanoseconds) ns")
            #expect(Self.written { $0.seconds(Interval(nanoseconds: nanoseconds)) } == expected, "\(nanoseconds) ns")
        }
        #expect(
            Self.written {
                $0.beginArray(); $0.seconds(Instant(nanoseconds: 1_500_000_000)); $0.seconds(Interval.zero);
                $0.endArray()
            } == "[1.5,0]")
    }

    private func pow10(_ exponent: Int) -> Double { (0..<exponent).reduce(1) { value, _ in value * 10 } }

    /// Integers of every width are written whole, to the limits of the widest.
    @Test func integers() {
        #expect(Self.written { $0.integer(Int64.min) } == "-9223372036854775808")
        #expect(Self.written { $0.integer(Int64.max) } == "9223372036854775807")
        #expect(Self.written { $0.integer(UInt64.max) } == "18446744073709551615")
        #expect(Self.written { $0.integer(0) } == "0")
        #expect(Self.written { $0.integer(-7) } == "-7")
        #expect(
            Self.written {
                $0.beginArray(); $0.integer(UInt8(255)); $0.integer(10); $0.endArray()
            } == "[255,10]")
    }

    /// A key given twice is refused wherever it comes, in a small object (searched in a line) and in
    /// a large one (searched in a set), at the top level and nested.
    @Test(arguments: [1, 15, 16, 17, 40])
    func duplicateKeys(count: Int) throws {
        let keys = (0..<count).map { "k\($0)" }
        let unique = "{" + keys.map { "\"\($0)\":1" }.joined(separator: ",") + "}"
        guard case .object(let members) = try JSONParser.parseDocument(Array(unique.utf8)) else {
            Issue.record("not an object")
            return
        }
        #expect(members.map(\.key) == keys)
        #expect(
            try JSONParser.parse(Array(#"{"n":\#(unique)}"#.utf8))
                == .object(["n": .object(Dictionary(uniqueKeysWithValues: keys.map { ($0, JSONValue.number(1)) }))]))
        for repeated in [keys[0], keys[count / 2], keys[count - 1]] {
            let text = String(unique.dropLast()) + #","\#(repeated)":2}"#
            let error = #expect(throws: JSONSyntaxError.self) { try JSONParser.parseDocument(Array(text.utf8)) }
            #expect(error?.reason == "duplicate key \"\(repeated)\"")
            #expect(error?.offset == unique.utf8.count)
            #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(Array(#"[\#(text)]"#.utf8)) }
        }
    }

    /// A top-level value other than an object comes back whole.
    @Test func documents() throws {
        #expect(try JSONParser.parseDocument(Array("[1]".utf8)) == .other(.array([.number(1)])))
        #expect(try JSONParser.parseDocument(Array(" \"a\" ".utf8)) == .other(.string("a")))
        #expect(try JSONParser.parseDocument(Array(" {} ".utf8)) == .object([]))
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parseDocument(Array("{} x".utf8)) }
    }

    /// Quotes, backslashes and control characters are escaped; other Unicode passes through as UTF-8.
    @Test func stringEscaping() throws {
        #expect(Self.written { $0.string(#"say "hi""#) } == #""say \"hi\"""#)
        #expect(Self.written { $0.string(#"a\b"#) } == #""a\\b""#)
        #expect(Self.written { $0.string("a\nb\rc\td") } == #""a\nb\rc\td""#)
        #expect(Self.written { $0.string("\u{0}\u{1}\u{1F}\u{8}\u{C}") } == #""\u0000\u0001\u001f\u0008\u000c""#)
        #expect(Self.written { $0.string("Sending… é 👍🏽 中") } == "\"Sending… é 👍🏽 中\"")
        #expect(Self.written { $0.string("/ and \u{7F}") } == "\"/ and \u{7F}\"")
        for text in ["", "\"\\\u{0}\n\u{1F}", "Sending…", "👍🏽\u{2028}\u{2029}", String(repeating: "ab\"", count: 50)] {
            let bytes = Self.written { $0.string(text) }
            #expect(try JSONParser.parse(Array(bytes.utf8)) == .string(text))
        }
    }

    /// Objects and arrays get their commas and colons; `value(_:)` writes keys in sorted order.
    @Test func structure() {
        let text = Self.written {
            $0.beginObject()
            $0.key("a")
            $0.beginArray()
            $0.integer(1)
            $0.bool(true)
            $0.null()
            $0.beginObject()
            $0.endObject()
            $0.beginArray()
            $0.endArray()
            $0.endArray()
            $0.key("b")
            $0.string("x")
            $0.endObject()
        }
        #expect(text == #"{"a":[1,true,null,{},[]],"b":"x"}"#)
        let value = JSONValue.object(["z": .number(1), "a": .array([.string("q"), .bool(false)]), "m": .null])
        #expect(Self.written { $0.value(value) } == #"{"a":["q",false],"m":null,"z":1}"#)
    }

    /// What the parser accepts: RFC 8259 values, with a byte order mark and surrounding white space.
    @Test func parsesValidJSON() throws {
        let text =
            #" {"a": [1, -2.5e3, 0, -0.0, 1E2, true, false, null], "b": {"c": "d\"\\\/\b\f\n\r\t\u00e9\ud83d\udc4d"}} "#
        let value = try JSONParser.parse(Array(text.utf8))
        #expect(
            value
                == .object([
                    "a": .array([
                        .number(1), .number(-2500), .number(0), .number(0), .number(100), .bool(true), .bool(false),
                        .null,
                    ]),
                    "b": .object(["c": .string("d\"\\/\u{8}\u{C}\n\r\té👍")]),
                ]))
        #expect(try JSONParser.parse([0xEF, 0xBB, 0xBF] + Array("[]".utf8)) == .array([]))
        #expect(try JSONParser.parse(Array(#""x""#.utf8)) == .string("x"))
        #expect(try JSONParser.parse(Array("\t\n\r 5 ".utf8)) == .number(5))
        let deepest =
            String(repeating: "[", count: JSONParser.maximumDepth)
            + String(repeating: "]", count: JSONParser.maximumDepth)
        #expect(throws: Never.self) { try JSONParser.parse(Array(deepest.utf8)) }
    }

    /// What the parser refuses, each with the offset where it stopped.
    @Test(arguments: [
        ("", 0), ("{", 1), (#"{"a":1,}"#, 7), ("[1,]", 3), ("[1 2]", 3), ("// c\n{}", 0), ("{/**/}", 1), ("NaN", 0),
        ("Infinity", 0), ("-Infinity", 1), ("nul", 0), ("True", 0), (#"{"a":1,"a":2}"#, 7), (#""\ud800""#, 7),
        (#""\udc00""#, 7), (#""\ud800\u0041""#, 13), (#""\u12""#, 3), (#""\q""#, 3), ("\"a\u{1}\"", 2),
        ("\"abc", 4), ("01", 1), ("1.", 2), (".5", 0), ("1e", 2), ("-", 1), ("+1", 0), ("0x10", 1),
        ("{} {}", 3), (#"{'a':1}"#, 1), ("{a:1}", 1), (#"{"a" 1}"#, 5), ("[", 1), ("]", 0),
    ])
    func refusesInvalidJSON(text: String, offset: Int) {
        let error = #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(Array(text.utf8)) }
        #expect(error?.offset == offset)
        #expect(error?.reason.isEmpty == false)
    }

    /// Bytes that are not UTF-8 inside strings, and nesting beyond 64, are refused.
    @Test func refusesBadBytesAndDepth() {
        for bytes: [UInt8] in [
            [0x22, 0xFF, 0x22], [0x22, 0xC0, 0xAF, 0x22], [0x22, 0xED, 0xA0, 0x80, 0x22], [0x22, 0xE2, 0x80, 0x22],
        ] {
            #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(bytes) }
        }
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse([0xFF]) }
        let tooDeep = String(repeating: "[", count: 65) + String(repeating: "]", count: 65)
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(Array(tooDeep.utf8)) }
        let hundred = String(repeating: #"{"a":"#, count: 100) + "1" + String(repeating: "}", count: 100)
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(Array(hundred.utf8)) }
        // Very deep input is refused at the limit, not by exhausting the stack.
        let huge = String(repeating: "[", count: 1_000_000)
        #expect(throws: JSONSyntaxError.self) { try JSONParser.parse(Array(huge.utf8)) }
    }
}
