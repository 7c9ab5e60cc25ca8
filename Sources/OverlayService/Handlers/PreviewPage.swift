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
    let answer = StaticAnswer(
        body: PackageResources.PreviewPage_html, contentType: "text/html; charset=utf-8",
        headers: [
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
        ])

    /// The page, or 304 when `If-None-Match` names its tag (or is `*`).
    func response(to request: HTTPRequest) -> HTTPResponse { answer.response(to: request) }

    static func firstIndex(of needle: [UInt8], in haystack: [UInt8]) -> Int? {
        guard needle.count <= haystack.count else { return nil }
        return (0...(haystack.count - needle.count)).first { haystack[$0..<($0 + needle.count)].elementsEqual(needle) }
    }
}
