internal import CMicroHTTPD

/// What one walk over a request's header fields finds that the head check in C does not look for:
/// a field a request may give once (`Host`, `Content-Type`) given again, and a `Content-Encoding`
/// naming a coding. libmicrohttpd keeps every header line, and a lookup answers only the first, so
/// a check that reads the first would pass what a proxy in front reads from another.
///
/// One pass per request judged: a field it does not look for costs a comparison of lengths.
struct HeaderWalk {
    private var hosts = 0
    private var contentTypes = 0
    /// The value of the first `Content-Encoding` field that names a coding other than identity;
    /// made a String only then (a request with no coding, nearly all, allocates nothing).
    private(set) var contentCoding: String?

    init(of connection: OpaquePointer) {
        withUnsafeMutablePointer(to: &self) { walk in
            _ = MHD_get_connection_values_n(
                connection, .HEADER_KIND,
                { walk, _, key, keySize, value, valueSize in
                    walk.unsafelyUnwrapped.assumingMemoryBound(to: HeaderWalk.self).pointee
                        .visit(key, keySize, value, valueSize)
                    return .YES
                }, walk)
        }
    }

    /// RFC 9112 §3.2: more than one Host is 400. Two Content-Types (RFC 9110 §5.3: a sender must
    /// not repeat a singleton field) are refused even when equal: the body's type would be a guess.
    var refusal: HTTPRefusal? {
        if hosts > 1 { return .malformed("more than one Host header") }
        if contentTypes > 1 { return .malformed("more than one Content-Type header") }
        return nil
    }

    // Names are compared a word at a time (rule 8 of docs/ARCHITECTURE.md's hot-path rules):
    // OR-ing 0x20 lowers ASCII letters, and maps no other byte a name may hold (a token, judged
    // by the head check) onto a letter or `-`. Constants are the names' bytes, little-endian.
    private mutating func visit(
        _ key: UnsafePointer<CChar>?, _ keySize: Int, _ value: UnsafePointer<CChar>?, _ valueSize: Int
    ) {
        guard let key else { return }
        let name = UnsafeRawPointer(key)
        switch keySize {
        case 4:
            if HeaderWalk.lowered(name, 0, as: UInt32.self) == 0x7473_6f68 { hosts += 1 }  // host
        case 12:
            // content- type
            if HeaderWalk.lowered(name, 0, as: UInt64.self) == 0x2d74_6e65_746e_6f63,
                HeaderWalk.lowered(name, 8, as: UInt32.self) == 0x6570_7974
            {
                contentTypes += 1
            }
        case 16:
            // content- encoding
            guard contentCoding == nil, HeaderWalk.lowered(name, 0, as: UInt64.self) == 0x2d74_6e65_746e_6f63,
                HeaderWalk.lowered(name, 8, as: UInt64.self) == 0x676e_6964_6f63_6e65
            else { return }
            let coding = UnsafeRawBufferPointer(start: value, count: value == nil ? 0 : valueSize)
            if !HeaderWalk.namesNoCoding(coding) { contentCoding = String(decoding: coding, as: UTF8.self) }
        default: break
        }
    }

    /// The name's bytes from `offset` as a word, ASCII letters lowered (see above).
    @inline(__always)
    private static func lowered<W: FixedWidthInteger>(_ name: UnsafeRawPointer, _ offset: Int, as: W.Type) -> W {
        W(littleEndian: name.loadUnaligned(fromByteOffset: offset, as: W.self))
            | W(truncatingIfNeeded: 0x2020_2020_2020_2020 as UInt64)
    }

    /// Whether a `Content-Encoding` value leaves the body as it is: a list (RFC 9110 §5.6.1) whose
    /// every element is `identity` (any case) or empty, so an empty value is no coding at all.
    static func namesNoCoding(_ value: UnsafeRawBufferPointer) -> Bool {
        var start = 0
        while start <= value.count {
            let end = value[start...].firstIndex(of: UInt8(ascii: ",")) ?? value.count
            var first = start
            var last = end
            while first < last, value[first] == 0x20 || value[first] == 0x09 { first += 1 }
            while last > first, value[last - 1] == 0x20 || value[last - 1] == 0x09 { last -= 1 }
            let element = UnsafeRawBufferPointer(rebasing: value[first..<last])
            guard element.isEmpty || equals(element, "identity") else { return false }
            start = end + 1
        }
        return true
    }

    /// Whether `bytes` are `name` (given in lower case), ASCII letters compared without regard to case.
    private static func equals(_ bytes: UnsafeRawBufferPointer, _ name: StaticString) -> Bool {
        guard bytes.count == name.utf8CodeUnitCount else { return false }
        for index in 0..<bytes.count {
            let byte = bytes[index]
            let lower = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
            if lower != name.utf8Start[index] { return false }
        }
        return true
    }
}
