import MicroHTTP

/// An answer whose bytes are fixed for the life of the server (the preview page, its font, the
/// element's module, the OpenAPI description): a strong ETag that is their hash, `no-cache` (the
/// URL stays the same when a restart or another build serves other bytes), and 304 when
/// `If-None-Match` names the tag (or is `*`).
struct StaticAnswer: Sendable {
    let body: [UInt8]
    /// The tag's value: the bytes' hash, written in decimal so that the one entity-tag parser
    /// (`EntityTagCondition`) reads it as it reads the overlay's versions.
    let tag: UInt64
    private let headers: [Header]
    private let notModifiedHeaders: [Header]

    init(body: [UInt8], contentType: String, headers more: [Header] = []) {
        self.body = body
        tag = StaticAnswer.fnv1a(body)
        let cache = [Header(name: "ETag", value: "\"\(tag)\""), Header(name: "Cache-Control", value: "no-cache")]
        notModifiedHeaders = cache
        headers = [Header(name: "Content-Type", value: contentType)] + cache + more
    }

    func response(to request: HTTPRequest) -> HTTPResponse {
        if let tags = request.header("If-None-Match"), EntityTagCondition(tags).matches(tag) {
            return HTTPResponse(status: 304, headers: notModifiedHeaders)
        }
        return HTTPResponse(status: 200, headers: headers, body: body)
    }

    /// 64-bit FNV-1a: a cache validator, not a defence against anyone choosing the bytes. Over
    /// the buffer, unchecked: the font is a quarter of a megabyte.
    static func fnv1a(_ bytes: [UInt8]) -> UInt64 {
        bytes.withUnsafeBufferPointer { buffer in
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in buffer {
                hash ^= UInt64(byte)
                hash = hash &* 0x0000_0100_0000_01B3
            }
            return hash
        }
    }
}
