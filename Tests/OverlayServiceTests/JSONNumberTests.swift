import Testing

@testable import OverlayService

/// The parser computes short decimals itself (Clinger's fast path), and the writer writes short
/// fractions itself: every number must read bit for bit as `Double(text)` reads it, and be written
/// as `Double.description` writes it, inside the fast paths' limits and past them.
@Suite("JSON numbers")
struct JSONNumberTests {
    static func parsed(_ text: String) throws -> Double? {
        if case .number(let value) = try JSONParser.parse(Array(text.utf8)) { return value }
        return nil
    }

    static let edges = [
        "0", "-0", "0.0", "-0.0", "1", "-1", "0.1", "0.2", "0.3", "0.4242", "0.9999", "1.5e-22", "1e22", "1e23",
        "-2.5E+3", "1E0", "1e-22", "1e-23", "123456789012345", "1234567890123456", "999999999999999e22",
        "9007199254740993", "0.000000000000001", "0.0000000000000001", "4.9e-324", "1.7976931348623157e308",
        "2.2250738585072014e-308", "0e-400", "1e999", "123.456e-3", "0.30000000000000004", "100e-2", "7e+000",
    ]

    @Test func edgesReadAsDoubleReadsThem() throws {
        for text in Self.edges {
            // A number too large reads as infinity, which every field's range refuses (422).
            let expected = Double(text)
            let got = try? Self.parsed(text)
            #expect(got?.bitPattern == expected?.bitPattern, "\(text)")
        }
    }

    /// Generated decimals of up to 18 digits with exponents around the fast path's ±22, from a
    /// fixed seed so that a failure repeats.
    @Test func generatedDecimalsReadAsDoubleReadsThem() throws {
        var state: UInt64 = 0x9E37_79B9_7F4A_7C15
        func next(_ bound: Int) -> Int {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            return Int((state >> 33) % UInt64(bound))
        }
        for _ in 0..<20000 {
            var text = next(4) == 0 ? "-" : ""
            let integerDigits = next(6)
            if integerDigits == 0 {
                text += "0"
            } else {
                text += String(1 + next(9))
                for _ in 1..<integerDigits { text += String(next(10)) }
            }
            if next(3) > 0 {
                text += "."
                for _ in 0...next(14) { text += String(next(10)) }
            }
            if next(3) == 0 {
                text += ["e", "E", "e+", "e-", "E-"][next(5)] + String(next(30))
            }
            let got = try Self.parsed(text)
            #expect(got?.bitPattern == Double(text)?.bitPattern, "\(text)")
        }
    }

    static func written(_ value: Double) -> String {
        var writer = JSONWriter()
        writer.number(value)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    @Test func fractionsWrittenAsDescriptionWritesThem() {
        var values: [Double] = [
            0.001, 0.0011, 0.00123456789, 0.000999, 0.5, 0.25, 0.999, 0.9999, 0.4242, 0.1, 0.2, 0.1 + 0.2,
            0.123456789012345, 0.1234567890123456, 0.99999999999999989, 0.0010000000000000002, -0.25, -0.001,
            1.5, 12.75, 0.0001, 1e-5, 1 / 3, 2 / 3,
        ]
        for steps in [10, 100, 1000, 10000, 100_000] {
            for step in 0...steps { values.append(Double(step) / Double(steps)) }
        }
        var state: UInt64 = 0x2545_F491_4F6C_DD1D
        for _ in 0..<20000 {
            state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
            values.append(Double(state >> 11) / Double(1 << 53))
        }
        for value in values {
            let expected = value == value.rounded(.towardZero) ? String(Int64(value)) : value.description
            #expect(Self.written(value) == expected, "\(value.bitPattern)")
        }
    }
}
