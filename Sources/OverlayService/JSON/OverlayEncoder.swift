import MicroHTTP
import OverlayEngine

/// The overlay as readers receive it: a JSON response with its ETag, a 304, or an SSE event.
///
/// One way to the bytes: every answer is the version's `OverlayTemplate` filled in with the
/// moving values of its instant, so a fill of a kept template, a fresh encoding and a fan-out
/// give the same bytes for the same version and instant.
struct OverlayEncoder: Sendable {
    /// How much an event stream may hold for a slow client before it keeps only the latest event.
    var streamBufferBytes: Int

    /// Room for an overlay with its status bar, so that encoding one does not grow the buffer: a
    /// shown message's is about 1.1 KB with the reader's side (§14), a pill's with a subtitle 1.4 KB.
    static let overlayCapacity = 1536

    func template(_ overlay: OverlaySnapshot) -> OverlayTemplate {
        OverlayTemplate(overlay, capacity: OverlayEncoder.overlayCapacity)
    }

    func body(_ overlay: OverlaySnapshot) -> [UInt8] {
        template(overlay).render(MovingValues(overlay))
    }

    static func etag(_ version: UInt64) -> String { "W/\"\(version)\"" }

    /// What every answer of a channel's version carries: its validator, and that a cache must
    /// check with it before reusing the answer.
    static func versionHeaders(_ version: UInt64) -> [Header] {
        [Header(name: "ETag", value: OverlayEncoder.etag(version)), Header(name: "Cache-Control", value: "no-cache")]
    }

    func headers(version: UInt64) -> [Header] { OverlayEncoder.versionHeaders(version) }

    func response(_ overlay: OverlaySnapshot) -> HTTPResponse {
        HTTPResponse(status: 200, headers: [Header.json] + headers(version: overlay.version), body: body(overlay))
    }

    func notModified(version: UInt64) -> HTTPResponse {
        HTTPResponse(status: 304, headers: headers(version: version))
    }

    /// `event: overlay`, `id: <version>`, `data: <overlay JSON>` (the JSON holds no line breaks).
    func event(_ overlay: OverlaySnapshot) -> [UInt8] {
        var event = Array("event: overlay\nid: \(overlay.version)\ndata: ".utf8)
        event.append(contentsOf: body(overlay))
        event.append(contentsOf: "\n\n".utf8)
        return event
    }
}
