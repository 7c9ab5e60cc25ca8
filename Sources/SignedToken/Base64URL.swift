/// Unpadded base64url (RFC 4648 §5), as every part of a compact JWS is written (RFC 7515 §2).
enum Base64URL {
    /// The bytes `text` encodes, or nil unless it is the one canonical encoding of them: only
    /// A–Z a–z 0–9 - _, no padding, no length that leaves a lone character, and the bits the last
    /// character has beyond the data all zero. So that a token has exactly one spelling, and
    /// libjwt (which skips what it cannot decode) never reads more into a part than this does.
    static func decode(_ text: ArraySlice<UInt8>) -> [UInt8]? {
        guard text.count % 4 != 1 else { return nil }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.count * 3 / 4)
        var pending: UInt32 = 0
        var pendingBits = 0
        for character in text {
            guard let value = sextet(character) else { return nil }
            pending = pending << 6 | value
            pendingBits += 6
            if pendingBits >= 8 {
                pendingBits -= 8
                bytes.append(UInt8(truncatingIfNeeded: pending >> pendingBits))
                pending &= (1 << pendingBits) - 1
            }
        }
        return pending == 0 ? bytes : nil
    }

    private static func sextet(_ character: UInt8) -> UInt32? {
        switch character {
        case UInt8(ascii: "A")...UInt8(ascii: "Z"): return UInt32(character - UInt8(ascii: "A"))
        case UInt8(ascii: "a")...UInt8(ascii: "z"): return UInt32(character - UInt8(ascii: "a")) + 26
        case UInt8(ascii: "0")...UInt8(ascii: "9"): return UInt32(character - UInt8(ascii: "0")) + 52
        case UInt8(ascii: "-"): return 62
        case UInt8(ascii: "_"): return 63
        default: return nil
        }
    }
}
