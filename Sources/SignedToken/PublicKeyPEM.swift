private import CCrypto

/// The check of an RS256 or ES256 key when a verifier is made, by libcrypto, the library libjwt
/// verifies with.
enum PublicKeyPEM {
    /// The public key in `pem` re-encoded by libcrypto (one `PUBLIC KEY` block, nothing around it),
    /// if it is a key `algorithm` may use: RSA of at least 2048 bits for RS256, EC on P-256 for
    /// ES256. libjwt is then handed only the key that was checked, whatever else the text held.
    static func canonical(_ pem: [UInt8], for algorithm: SignedTokenAlgorithm) throws(SignedTokenKeyError) -> [UInt8] {
        func refuse(_ reason: SignedTokenKeyError.Reason) -> SignedTokenKeyError {
            SignedTokenKeyError(algorithm: algorithm, reason: reason)
        }
        // A refused key leaves libcrypto's reasons in this thread's error queue, where the next
        // libcrypto user on the thread (libcurl, libjwt) would take them for its own.
        defer { ERR_clear_error() }
        guard let key = read(pem) else { throw refuse(.notAPublicKey) }
        defer { EVP_PKEY_free(key) }
        switch algorithm {
        case .rs256:
            guard EVP_PKEY_is_a(key, "RSA") == 1 else { throw refuse(.wrongKeyType(typeName(key))) }
            let bits = Int(EVP_PKEY_get_bits(key))
            guard bits >= 2048 else { throw refuse(.rsaKeyTooSmall(bits: bits)) }
        case .es256:
            guard EVP_PKEY_is_a(key, "EC") == 1 else { throw refuse(.wrongKeyType(typeName(key))) }
            let curve = curveName(key) ?? "an unnamed curve"
            guard curve == "prime256v1" else { throw refuse(.wrongCurve(curve)) }
        case .hs256, .hs384, .hs512:
            preconditionFailure("\(algorithm.rawValue) takes a secret, not a public key")
        }
        guard let encoded = write(key) else { throw refuse(.notAPublicKey) }
        return encoded
    }

    /// The first PEM public key in `pem`, or nil.
    private static func read(_ pem: [UInt8]) -> OpaquePointer? {
        guard !pem.isEmpty, pem.count <= Int(Int32.max) else { return nil }
        return pem.withUnsafeBytes { buffer in
            guard let bio = BIO_new_mem_buf(buffer.baseAddress, Int32(buffer.count)) else { return nil }
            defer { BIO_free(bio) }
            // A callback that gives no passphrase: OpenSSL's default one would prompt on the
            // terminal for an encrypted block.
            return PEM_read_bio_PUBKEY(bio, nil, { _, _, _, _ in 0 }, nil)
        }
    }

    private static func write(_ key: OpaquePointer) -> [UInt8]? {
        guard let bio = BIO_new(BIO_s_mem()) else { return nil }
        defer { BIO_free(bio) }
        guard PEM_write_bio_PUBKEY(bio, key) == 1 else { return nil }
        var encoded = [UInt8](repeating: 0, count: Int(BIO_ctrl_pending(bio)))
        guard !encoded.isEmpty, BIO_read(bio, &encoded, Int32(encoded.count)) == Int32(encoded.count) else {
            return nil
        }
        return encoded
    }

    private static func typeName(_ key: OpaquePointer) -> String {
        EVP_PKEY_get0_type_name(key).map { String(cString: $0) } ?? "unknown"
    }

    private static func curveName(_ key: OpaquePointer) -> String? {
        var name = [CChar](repeating: 0, count: 80)
        var length = 0
        guard EVP_PKEY_get_group_name(key, &name, name.count, &length) == 1 else { return nil }
        return String(decoding: name.prefix(length).map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }
}
