/// Test vectors are printed in hex; this reads them back into bytes.
enum Hex {
    /// The bytes of `text`, two hex digits each (whitespace ignored, as the RFCs wrap long values).
    static func bytes(_ text: String) -> [UInt8] {
        let digits = text.utf8.filter { $0 != 32 && $0 != 10 }.map { digit -> UInt8 in
            switch digit {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): return digit - UInt8(ascii: "0")
            case UInt8(ascii: "a")...UInt8(ascii: "f"): return digit - UInt8(ascii: "a") + 10
            default: preconditionFailure("not a lowercase hex digit: \(digit)")
            }
        }
        precondition(digits.count % 2 == 0, "an odd number of hex digits")
        return stride(from: 0, to: digits.count, by: 2).map { digits[$0] << 4 | digits[$0 + 1] }
    }
}
