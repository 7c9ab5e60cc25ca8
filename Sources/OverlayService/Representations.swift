import MicroHTTP
import OverlayEngine

/// The JSON shapes of spec §5, written in the order the spec shows them.
extension JSONWriter {
    mutating func overlay(_ overlay: OverlaySnapshot) {
        beginObject()
        key("version")
        integer(overlay.version)
        key("now")
        number(overlay.now.seconds)
        key("phase")
        string(overlay.phase.rawValue)
        key("orientation")
        string(overlay.orientation.rawValue)
        key("rotation")
        integer(overlay.rotation)
        key("device")
        string(overlay.device.name)
        key("frame")
        rect(overlay.frame)
        key("contentOffset")
        number(overlay.contentOffset)
        key("alpha")
        number(overlay.alpha)
        key("message")
        if let message = overlay.message {
            beginObject()
            key("id")
            integer(message.id)
            key("kind")
            string(message.kind.rawValue)
            key("text")
            string(message.text)
            key("progress")
            optionalNumber(message.progress)
            key("state")
            string(message.state.rawValue)
            endObject()
        } else {
            null()
        }
        key("label")
        if let label = overlay.label {
            beginObject()
            key("text")
            string(label.text)
            key("frame")
            rect(label.frame)
            endObject()
        } else {
            null()
        }
        key("style")
        if let style = overlay.style {
            beginObject()
            key("background")
            string(style.background)
            key("foreground")
            string(style.foreground)
            endObject()
        } else {
            null()
        }
        key("activity")
        bool(overlay.activity)
        key("progressBar")
        if let bar = overlay.progressBar {
            beginObject()
            key("progress")
            number(bar.progress)
            key("position")
            string(bar.position.rawValue)
            key("frame")
            rect(bar.frame)
            endObject()
        } else {
            null()
        }
        key("queued")
        integer(overlay.queued)
        key("animation")
        if let animation = overlay.animation {
            beginObject()
            key("property")
            string(animation.property.rawValue)
            key("from")
            number(animation.from)
            key("to")
            number(animation.to)
            key("start")
            number(animation.start.seconds)
            key("duration")
            number(animation.length.seconds)
            if overlay.curve != .linear {
                key("curve")
                string(overlay.curve.rawValue)
            }
            endObject()
        } else {
            null()
        }
        endObject()
    }

    /// A message as `/messages` shows it: the overlay's summary plus its timing and sender fields.
    mutating func message(_ message: Message) {
        beginObject()
        key("id")
        integer(message.id)
        key("kind")
        string(message.kind.rawValue)
        key("text")
        string(message.text)
        key("progress")
        optionalNumber(message.progress)
        key("state")
        string(message.state.rawValue)
        key("duration")
        optionalNumber(message.duration?.seconds)
        key("immediate")
        bool(message.immediate)
        key("key")
        if let messageKey = message.key { string(messageKey) } else { null() }
        key("postedAt")
        number(message.postedAt.seconds)
        key("shownAt")
        optionalNumber(message.shownAt?.seconds)
        key("displayStartedAt")
        optionalNumber(message.displayStartedAt?.seconds)
        key("endsAt")
        optionalNumber(message.state.hasEnded ? nil : message.deadline?.seconds)
        key("endedAt")
        optionalNumber(message.endedAt?.seconds)
        endObject()
    }

    mutating func rect(_ rect: Rect) {
        beginObject()
        key("x")
        number(rect.x)
        key("y")
        number(rect.y)
        key("width")
        number(rect.width)
        key("height")
        number(rect.height)
        endObject()
    }

    mutating func optionalNumber(_ value: Double?) {
        if let value { number(value) } else { null() }
    }
}

/// The overlay as readers receive it: a JSON response with its ETag, a 304, or an SSE event.
struct OverlayEncoder: Sendable {
    /// How much an event stream may hold for a slow client before it keeps only the latest event.
    var streamBufferBytes: Int

    func body(_ overlay: OverlaySnapshot) -> [UInt8] {
        var writer = JSONWriter(capacity: 640)
        writer.overlay(overlay)
        return writer.bytes
    }

    static func etag(_ version: UInt64) -> String { "W/\"\(version)\"" }

    func headers(version: UInt64) -> [Header] {
        [Header(name: "ETag", value: OverlayEncoder.etag(version)), Header(name: "Cache-Control", value: "no-cache")]
    }

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
