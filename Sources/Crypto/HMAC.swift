private import CCrypto

/// HMAC (RFC 2104) computed by OpenSSL's libcrypto.
public enum HMAC: Sendable {
    /// HMAC-SHA256 of `message` under `key`: 32 bytes. Compare a received MAC with this one
    /// through `ConstantTime.equals`, never `==`.
    public static func sha256(key: [UInt8], message: [UInt8]) -> [UInt8] {
        // HMAC() takes the key's length as an int.
        precondition(key.count <= Int(Int32.max), "HMAC key of \(key.count) bytes: longer than libcrypto takes")
        var mac = [UInt8](repeating: 0, count: SHA256.byteCount)
        var length: UInt32 = 0
        let done = withNonNullBytes(key) { key in
            withNonNullBytes(message) { message in
                // Qualified: inside this enum, a bare `HMAC` is the enum.
                CCrypto.HMAC(
                    EVP_sha256(), key.baseAddress, Int32(key.count), message.baseAddress, message.count, &mac, &length)
                    != nil
            }
        }
        // Fails only without memory or libcrypto's built-in provider: nothing a caller could do.
        guard done, length == SHA256.byteCount else { fatalError("libcrypto: HMAC-SHA256 failed") }
        return mac
    }

    /// `bytes` as a buffer whose address is never NULL, even when empty: under HMAC(), OpenSSL 3's
    /// EVP_MAC_init reads a NULL key as "no key given", not as the empty key.
    private static func withNonNullBytes<R>(_ bytes: [UInt8], _ body: (UnsafeBufferPointer<UInt8>) -> R) -> R {
        if bytes.isEmpty {
            var placeholder: UInt8 = 0
            return withUnsafePointer(to: &placeholder) { body(UnsafeBufferPointer(start: $0, count: 0)) }
        }
        return bytes.withUnsafeBufferPointer(body)
    }
}
