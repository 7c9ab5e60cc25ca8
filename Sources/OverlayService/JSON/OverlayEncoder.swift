import MicroHTTP
import OverlayEngine

/// The overlay as readers receive it: a JSON response with its ETag, a 304, or an SSE event.
///
/// One way to the bytes: a read between deadlines fills the version's `OverlayTemplate` in with the
/// moving values of its instant, and every other answer (a fan-out's, a write's, a read the kept
/// template does not serve) writes those values in place through the same mapping, so every path
/// gives the same bytes for a version and instant.
struct OverlayEncoder: Sendable {
    /// How much an event stream may hold for a slow client before it keeps only the latest event.
    var streamBufferBytes: Int

    /// Room for an overlay with its status bar, so that encoding one does not grow the buffer: a
    /// shown message's is about 1.1 KB with the reader's side (§14), a pill's with a subtitle 1.4 KB.
    static let overlayCapacity = 1536

    func template(_ overlay: OverlaySnapshot) -> OverlayTemplate {
        OverlayTemplate(overlay, capacity: OverlayEncoder.overlayCapacity)
    }

    /// Written straight, not through a template: the template's pieces would be cut and copied
    /// for one use.
    func body(_ overlay: OverlaySnapshot) -> [UInt8] {
        var writer = JSONWriter(capacity: OverlayEncoder.overlayCapacity)
        writer.overlay(overlay, filledWith: MovingValues(overlay))
        return writer.bytes
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
    /// Written in one buffer: cut into a template, filled, then copied behind its prefix, the JSON
    /// cost about 15,000 more instructions a version (bench/instructions --only sse, 100 streams:
    /// 3,139 a stream event before, 2,987 after; medians of six).
    func event(_ overlay: OverlaySnapshot) -> [UInt8] {
        var writer = JSONWriter(capacity: OverlayEncoder.overlayCapacity + 64)
        writer.raw("event: overlay\nid: ")
        writer.rawInteger(overlay.version)
        writer.raw("\ndata: ")
        writer.overlay(overlay, filledWith: MovingValues(overlay))
        writer.raw("\n\n")
        return writer.bytes
    }
}
