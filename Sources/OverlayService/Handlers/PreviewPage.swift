import MicroHTTP
import OverlayEngine

/// `GET /preview` (and `/channels/{name}/preview`): one page that draws the overlay on the
/// device's screen as the events describe it, with controls to drive it.
///
/// The page is `PreviewPage.html`, compiled in. It draws through `<overlayd-overlay>`, the module
/// `OverlaydModule` serves from this server (`/overlayd.js`), which holds the device profiles and
/// the text sizes: there is one renderer, and the page's bytes are the same for every
/// configuration. Its ETag is a hash of those bytes: the same build serves the same tag, across
/// restarts.
struct PreviewPage: Sendable {
    let body: [UInt8]
    /// Strong: the bytes are fixed for the life of the server.
    let etag: String
    /// The tag's value: the page's hash, written in decimal so that the one entity-tag parser
    /// (`EntityTagCondition`) reads it as it reads the overlay's versions.
    let tag: UInt64
    private let headers: [Header]
    private let notModifiedHeaders: [Header]

    init() {
        body = PackageResources.PreviewPage_html
        tag = PreviewPage.fnv1a(body)
        etag = "\"\(tag)\""
        let cache = [Header(name: "ETag", value: etag), Header(name: "Cache-Control", value: "no-cache")]
        notModifiedHeaders = cache
        headers =
            [Header(name: "Content-Type", value: "text/html; charset=utf-8")] + cache + [
                // The page needs nothing from anywhere else (its script's one import is
                // `/overlayd.js`, its one font `/preview/font`, both overlayd's own); the browser
                // holds it to that. It may not be framed: its controls write with the server's own
                // origin, so a page that framed it could trick a click into a write (clickjacking).
                Header(
                    name: "Content-Security-Policy",
                    value: "default-src 'none'; script-src 'self' 'unsafe-inline'; style-src 'unsafe-inline'; "
                        + "connect-src 'self'; font-src 'self'; img-src data:; base-uri 'none'; form-action 'none'; "
                        + "frame-ancestors 'none'"),
                Header(name: "X-Frame-Options", value: "DENY"),
                Header(name: "X-Content-Type-Options", value: "nosniff"),
                Header(name: "Referrer-Policy", value: "no-referrer"),
            ]
    }

    /// The page, or 304 when `If-None-Match` names its tag (or is `*`).
    func response(to request: HTTPRequest) -> HTTPResponse {
        if let tags = request.header("If-None-Match"), EntityTagCondition(tags).matches(tag) {
            return HTTPResponse(status: 304, headers: notModifiedHeaders)
        }
        return HTTPResponse(status: 200, headers: headers, body: body)
    }

    static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        return (0...(haystack.count - needle.count)).first { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }

    /// 64-bit FNV-1a: a cache validator, not a defence against anyone choosing the bytes. Over
    /// the buffer, unchecked: the font `PreviewFont` tags with it is a quarter of a megabyte.
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
