private import CCrypto

/// Unpredictable bytes from OpenSSL's CSPRNG (`RAND_bytes`, seeded by the kernel's getrandom and
/// reseeded after a fork): for secrets, tokens and nonces.
public enum SystemRandom: Sendable {
    /// The 62 ASCII letters and digits, A–Z, a–z, 0–9.
    public static let alphanumeric: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789".utf8)

    /// `count` random bytes.
    ///
    /// Traps if libcrypto cannot produce them (no entropy source, out of memory): every caller
    /// asks for a secret, and going on with a guessable one would be worse than stopping.
    public static func bytes(_ count: Int) -> [UInt8] {
        precondition(count >= 0, "SystemRandom.bytes: negative count \(count)")
        var bytes = [UInt8](repeating: 0, count: count)
        bytes.withUnsafeMutableBufferPointer { buffer in
            var start = 0
            // RAND_bytes takes an int: a larger request is filled in pieces.
            while start < buffer.count {
                let length = min(buffer.count - start, Int(Int32.max))
                guard RAND_bytes(buffer.baseAddress! + start, Int32(length)) == 1 else {
                    fatalError("libcrypto: RAND_bytes failed: no randomness to make a secret from")
                }
                start += length
            }
        }
        return bytes
    }

    /// `count` symbols drawn independently and uniformly from `alphabet` (ASCII bytes, each at
    /// most once, 1 to 128 of them).
    ///
    /// Uniform without modulo bias: a random byte is used only below the largest multiple of the
    /// alphabet's size that fits in 256 and is drawn again otherwise (rejection sampling).
    public static func string(count: Int, alphabet: [UInt8]) -> String {
        precondition(count >= 0, "SystemRandom.string: negative count \(count)")
        precondition(!alphabet.isEmpty && alphabet.allSatisfy { $0 < 0x80 }, "the alphabet must be ASCII symbols")
        precondition(Set(alphabet).count == alphabet.count, "a repeated symbol would be drawn more often")
        let size = alphabet.count
        let limit = 256 - 256 % size
        var symbols: [UInt8] = []
        symbols.reserveCapacity(count)
        while symbols.count < count {
            let missing = count - symbols.count
            // At most half the bytes are rejected (limit > 128), usually none: a quarter more, and a
            // few, makes a second draw rare.
            for byte in bytes(missing + missing / 4 + 8) where Int(byte) < limit && symbols.count < count {
                symbols.append(alphabet[Int(byte) % size])
            }
        }
        return String(decoding: symbols, as: UTF8.self)
    }
}
