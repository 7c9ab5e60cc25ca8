import MicroHTTP
import OverlayEngine

/// `GET /preview` (and `/channels/{name}/preview`): one self-contained page that draws the overlay
/// on the device's screen as the events describe it, with controls to drive it.
///
/// The page is `PreviewPage.html`, compiled in; the device profiles, the progress bar's cap
/// width and the text sizes are written into it once, at start, so it can draw every screen to
/// scale (its text in the measuring font, from `PreviewFont`). Its ETag is a
/// hash of those bytes: the same build with the same settings serves the same tag, across restarts.
struct PreviewPage: Sendable {
    let body: [UInt8]
    /// Strong: the bytes are fixed for the life of the server.
    let etag: String
    /// The tag's value: the page's hash, written in decimal so that the one entity-tag parser
    /// (`EntityTagCondition`) reads it as it reads the overlay's versions.
    let tag: UInt64
    private let headers: [Header]
    private let notModifiedHeaders: [Header]

    /// Where the settings go in the page: the body of a JSON script element.
    static let placeholder = Array("{\"devices\":{}}".utf8)

    init(configuration: ServiceConfiguration) {
        var json = JSONWriter(capacity: 256)
        json.beginObject()
        json.key("capWidth")
        json.number(configuration.engine.progressBarCapWidth)
        json.key("devices")
        json.beginObject()
        for profile in configuration.devices.values.sorted(by: { $0.name < $1.name }) {
            json.key(text: profile.name)
            json.beginObject()
            json.key("width")
            json.number(profile.width)
            json.key("height")
            json.number(profile.height)
            json.key("statusBarHeight")
            json.number(profile.statusBarHeight)
            // What the page needs to draw the screen's top as it is (SPEC §10): the portrait safe
            // area, and the notch or the island (whose rectangle only the page uses).
            json.key("safeAreaTop")
            json.number(profile.safeAreaTop ?? profile.statusBarHeight)
            json.key("cutout")
            json.string(profile.cutout.rawValue)
            if let island = profile.island {
                json.key("island")
                json.beginObject()
                json.key("width")
                json.number(island.width)
                json.key("height")
                json.number(island.height)
                json.key("y")
                json.number(island.y)
                json.endObject()
            }
            json.endObject()
        }
        json.endObject()
        // The sizes the texts are measured at, to draw them at (in the font `GET /preview/font` serves).
        json.key("titleSize")
        json.number(configuration.text.titleSize)
        json.key("subtitleSize")
        json.number(configuration.text.subtitleSize)
        json.endObject()
        let page = PackageResources.PreviewPage_html
        // Device names are 1–64 of A-Z a-z 0-9 . _ - , a cutout is one of three words and the rest
        // are numbers: nothing in the JSON can end the script element it is written into.
        if let start = PreviewPage.firstIndex(of: PreviewPage.placeholder, in: page) {
            body = Array(page[..<start]) + json.bytes + Array(page[(start + PreviewPage.placeholder.count)...])
        } else {
            body = page
        }
        tag = PreviewPage.fnv1a(body)
        etag = "\"\(tag)\""
        let cache = [Header(name: "ETag", value: etag), Header(name: "Cache-Control", value: "no-cache")]
        notModifiedHeaders = cache
        headers =
            [Header(name: "Content-Type", value: "text/html; charset=utf-8")] + cache + [
                // The page needs nothing from anywhere else (its one font is overlayd's own,
                // `GET /preview/font`); the browser holds it to that. It may
                // not be framed: its controls write with the server's own origin, so a page that
                // framed it could trick a click into a write (clickjacking).
                Header(
                    name: "Content-Security-Policy",
                    value: "default-src 'none'; script-src 'unsafe-inline'; style-src 'unsafe-inline'; "
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
