private import CCrypto

/// SHA-256 (FIPS 180-4), computed by OpenSSL's libcrypto.
public enum SHA256: Sendable {
    /// The digest's length in bytes.
    public static let byteCount = 32

    /// The 32-byte digest of `bytes`. Contiguous bytes (an array, a slice) are hashed in place;
    /// any other sequence is read once, a block at a time, never collected whole.
    public static func hash<S: Sequence>(_ bytes: S) -> [UInt8] where S.Element == UInt8 {
        guard let context = EVP_MD_CTX_new() else { Self.fail("EVP_MD_CTX_new") }
        defer { EVP_MD_CTX_free(context) }
        guard EVP_DigestInit_ex(context, algorithm.md, nil) == 1 else { Self.fail("EVP_DigestInit_ex") }
        let hashedInPlace = bytes.withContiguousStorageIfAvailable { Self.update(context, $0) } != nil
        if !hashedInPlace {
            var block: [UInt8] = []
            block.reserveCapacity(4096)
            for byte in bytes {
                block.append(byte)
                if block.count == 4096 {
                    block.withUnsafeBufferPointer { Self.update(context, $0) }
                    block.removeAll(keepingCapacity: true)
                }
            }
            block.withUnsafeBufferPointer { Self.update(context, $0) }
        }
        var digest = [UInt8](repeating: 0, count: byteCount)
        var length: UInt32 = 0
        guard EVP_DigestFinal_ex(context, &digest, &length) == 1, length == byteCount else {
            Self.fail("EVP_DigestFinal_ex")
        }
        return digest
    }

    /// `bytes` (usually a digest from `hash`) as lowercase hex, two digits a byte: the digest's
    /// spelling in `sha256sum`'s output and in stored records. It only encodes; it does not hash.
    public static func hex(_ bytes: [UInt8]) -> String {
        let digits = Array("0123456789abcdef".utf8)
        var text: [UInt8] = []
        text.reserveCapacity(2 * bytes.count)
        for byte in bytes {
            text.append(digits[Int(byte >> 4)])
            text.append(digits[Int(byte & 0x0f)])
        }
        return String(decoding: text, as: UTF8.self)
    }

    private static func update(_ context: OpaquePointer, _ buffer: UnsafeBufferPointer<UInt8>) {
        guard buffer.count > 0 else { return }
        guard EVP_DigestUpdate(context, buffer.baseAddress, buffer.count) == 1 else { fail("EVP_DigestUpdate") }
    }

    /// SHA-256 fetched from the default provider once. OpenSSL 3 fetches `EVP_sha256()` again in
    /// every `EVP_DigestInit_ex`, most of what hashing a 44-byte secret costs (bench/instructions,
    /// `token`: about 6,400 instructions a hash before, see BENCHMARKS.md for after). A fetched
    /// algorithm is immutable and may be used from any thread (OpenSSL's crypto(7), "Fetching").
    private final class Algorithm: @unchecked Sendable {
        let md: OpaquePointer

        init() {
            guard let md = EVP_MD_fetch(nil, "SHA256", nil) else { SHA256.fail("EVP_MD_fetch") }
            self.md = md
        }
    }

    private static let algorithm = Algorithm()

    /// libcrypto's digest calls fail only when memory or its built-in provider is missing: the
    /// process cannot work on, and a wrong digest would be worse than none.
    fileprivate static func fail(_ call: String) -> Never {
        fatalError("libcrypto: \(call) failed while computing SHA-256")
    }
}
