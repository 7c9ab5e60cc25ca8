import Crypto
import Testing

/// Randomness from libcrypto: the lengths asked for, only the alphabet's symbols, no two draws
/// alike, and every symbol equally likely. The counts' bounds are many standard deviations wide, so
/// that only a broken generator or a biased mapping fails them.
@Suite("System randomness")
struct SystemRandomTests {
    /// Exactly the bytes asked for, none for zero.
    @Test func byteCounts() {
        #expect(SystemRandom.bytes(0) == [])
        for count in [1, 16, 32, 1000, 65_537] {
            #expect(SystemRandom.bytes(count).count == count)
        }
    }

    /// Two draws of 32 bytes differ (the chance that they do not is 2⁻²⁵⁶); so do two strings.
    @Test func drawsDiffer() {
        #expect(SystemRandom.bytes(32) != SystemRandom.bytes(32))
        let alphabet = SystemRandom.alphanumeric
        #expect(
            SystemRandom.string(count: 32, alphabet: alphabet) != SystemRandom.string(count: 32, alphabet: alphabet))
    }

    /// A string has the count asked for, and only symbols of its alphabet.
    @Test func stringsUseTheAlphabet() {
        #expect(SystemRandom.alphanumeric.count == 62)
        #expect(SystemRandom.string(count: 0, alphabet: SystemRandom.alphanumeric) == "")
        for alphabet in [SystemRandom.alphanumeric, Array("01".utf8), Array("x".utf8), Array("abc".utf8)] {
            let text = SystemRandom.string(count: 500, alphabet: alphabet)
            #expect(text.utf8.count == 500)
            #expect(text.utf8.allSatisfy { alphabet.contains($0) }, "\(text)")
        }
        #expect(SystemRandom.string(count: 5, alphabet: Array("x".utf8)) == "xxxxx")
    }

    /// 62,000 alphanumerics: every one of the 62 appears, each about 1,000 times (σ ≈ 31).
    @Test func everySymbolAppears() {
        let counts = Self.counts(of: SystemRandom.string(count: 62_000, alphabet: SystemRandom.alphanumeric))
        #expect(counts.count == 62)
        for symbol in SystemRandom.alphanumeric {
            let count = counts[symbol, default: 0]
            #expect((700...1300).contains(count), "\(Character(Unicode.Scalar(symbol))): \(count) of 62,000")
        }
    }

    /// No modulo bias: with 100 symbols, 256 mod 100 = 56, so mapping a byte with `% 100` alone
    /// would make the first 56 symbols half again as likely as the other 44 (1,170 against 780 of
    /// 100,000 each). Drawn without bias, both groups average 1,000 (σ of a mean ≈ 5).
    @Test func noModuloBias() {
        let alphabet = Array(UInt8(20)..<120)
        let counts = Self.counts(of: SystemRandom.string(count: 100_000, alphabet: alphabet))
        let first = alphabet[..<56].map { Double(counts[$0, default: 0]) }.reduce(0, +) / 56
        let rest = alphabet[56...].map { Double(counts[$0, default: 0]) }.reduce(0, +) / 44
        #expect((950...1050).contains(first), "the first 56 symbols average \(first)")
        #expect((950...1050).contains(rest), "the other 44 symbols average \(rest)")
    }

    /// Bytes are uniform too: over 256,000 of them, each value about 1,000 times.
    @Test func bytesAreUniform() {
        var counts = [Int](repeating: 0, count: 256)
        for byte in SystemRandom.bytes(256_000) { counts[Int(byte)] += 1 }
        #expect(counts.allSatisfy { (700...1300).contains($0) }, "\(counts)")
    }

    private static func counts(of text: String) -> [UInt8: Int] {
        var counts: [UInt8: Int] = [:]
        for symbol in text.utf8 { counts[symbol, default: 0] += 1 }
        return counts
    }
}
