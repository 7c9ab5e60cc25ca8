/// A compact JWS (RFC 7515 §7.1) taken apart: its three parts decoded, nothing checked yet.
struct CompactToken {
    /// The protected header's bytes (JSON, unchecked).
    let header: [UInt8]
    /// The payload's bytes: exactly what was signed.
    let payload: [UInt8]
    /// The signature's bytes.
    let signature: [UInt8]

    /// The parts of `token`, or nil unless it is three non-empty canonical base64url parts
    /// joined by dots. An unsigned token (`alg` none, empty signature) is nil too.
    init?(_ token: [UInt8]) {
        let parts = token.split(separator: UInt8(ascii: "."), omittingEmptySubsequences: false)
        guard parts.count == 3, parts.allSatisfy({ !$0.isEmpty }),
            let header = Base64URL.decode(parts[0]),
            let payload = Base64URL.decode(parts[1]),
            let signature = Base64URL.decode(parts[2])
        else { return nil }
        self.header = header
        self.payload = payload
        self.signature = signature
    }
}
