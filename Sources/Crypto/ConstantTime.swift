private import CCrypto

/// Comparisons whose duration does not depend on where secret bytes differ.
public enum ConstantTime: Sendable {
    /// Whether `a` and `b` hold the same bytes, by OpenSSL's `CRYPTO_memcmp`: every byte is read
    /// whatever the contents, so the time depends on the lengths only. Of different lengths they
    /// are unequal, and `a` is still read through.
    public static func equals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard a.count == b.count else {
            // The same work as comparing equal lengths: a mismatch of lengths takes no shortcut
            // that a difference in contents could be told from.
            _ = compare(a, a)
            return false
        }
        return compare(a, b)
    }

    private static func compare(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        guard !a.isEmpty else { return true }
        return a.withUnsafeBytes { a in
            b.withUnsafeBytes { b in CRYPTO_memcmp(a.baseAddress, b.baseAddress, a.count) == 0 }
        }
    }
}
