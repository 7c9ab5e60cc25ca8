import MicroHTTP
import Platform

/// `GET /preview/font`: the bytes of the font file texts are measured with (`text.font`), so that
/// the preview page draws each text with the very font whose widths the server reports.
///
/// The file is read once, when the service starts (once per process for each path, as the
/// measurer loads it), never per request. Its ETag is a hash of the bytes; `no-cache` as for the
/// page, because the URL stays the same when a restart names another font.
struct PreviewFont: Sendable {
    /// Nil when the file could not be read.
    private let answer: StaticAnswer?

    init(path: String) {
        answer = PreviewFont.bytes(of: path).map { body in
            StaticAnswer(
                body: body, contentType: PreviewFont.mediaType(of: body),
                headers: [Header(name: "X-Content-Type-Options", value: "nosniff")])
        }
    }

    /// The font, 304 when `If-None-Match` names its tag, or 404 when the file could not be read
    /// (only a configuration built in code gets that far: the loader stops at a font it cannot load).
    func response(to request: HTTPRequest) throws(APIError) -> HTTPResponse {
        guard let answer else { throw APIError.notFound("the configured font file (text.font) could not be read") }
        return answer.response(to: request)
    }

    /// The font's media type from its first four bytes (its sfnt version or container tag).
    static func mediaType(of bytes: [UInt8]) -> String {
        let tag = String(decoding: bytes.prefix(4), as: UTF8.self)
        return switch tag {
        case "OTTO": "font/otf"
        case "ttcf": "font/collection"
        case "wOFF": "font/woff"
        case "wOF2": "font/woff2"
        default: "font/ttf"
        }
    }

    private static let read = Lock<[String: [UInt8]]>([:])

    private static func bytes(of path: String) -> [UInt8]? {
        if let bytes = read.withLock({ $0[path] }) { return bytes }
        guard let bytes = try? ConfigurationLoader.readFile(path), !bytes.isEmpty else { return nil }
        read.withLock { $0[path] = bytes }
        return bytes
    }
}
