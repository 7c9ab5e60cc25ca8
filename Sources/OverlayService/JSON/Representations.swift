import MicroHTTP
import OverlayEngine

/// The JSON shapes of MODEL §5, written in the order MODEL §5 shows them; the overlay ends with the
/// status bar under it and whether that holds it (docs/STATUSBAR.md).
extension JSONWriter {
    /// The overlay. With `template`, the values that move within a version are left as slots.
    mutating func overlay(_ overlay: OverlaySnapshot, template: Bool = false) {
        func moving(_ value: Double, _ slot: OverlayTemplate.Slot) {
            if template { self.slot(slot.rawValue) } else { number(value) }
        }
        beginObject()
        key("version")
        integer(overlay.version)
        key("now")
        moving(overlay.now.seconds, .now)
        key("phase")
        string(overlay.phase.rawValue)
        key("orientation")
        string(overlay.orientation.rawValue)
        key("rotation")
        integer(overlay.rotation)
        key("device")
        string(overlay.device.name)
        key("presentation")
        string(overlay.presentation.rawValue)
        key("frame")
        rect(overlay.frame)
        key("contentOffset")
        moving(overlay.contentOffset, .contentOffset)
        key("alpha")
        moving(overlay.alpha, .alpha)
        key("message")
        if let message = overlay.message {
            beginObject()
            summary(of: message)
            endObject()
        } else {
            null()
        }
        announcement(of: overlay)
        key("label")
        line(overlay.label, restingY: overlay.restingLayout?.label.y, template: template, slot: .labelY)
        key("subtitle")
        line(overlay.subtitle, restingY: overlay.restingLayout?.subtitle?.y, template: template)
        key("outgoing")
        if let outgoing = overlay.outgoing {
            beginObject()
            key("text")
            string(outgoing.text)
            key("frame")
            rect(outgoing.frame, restingY: template ? overlay.outgoingBaseY : nil, slot: .labelY)
            endObject()
        } else {
            null()
        }
        key("accessory")
        if let accessory = overlay.accessory {
            beginObject()
            key("kind")
            string(accessory.kind.rawValue)
            key("icon")
            if let icon = accessory.icon { string(icon) } else { null() }
            key("frame")
            rect(accessory.frame, restingY: template ? overlay.restingLayout?.accessory?.y : nil)
            endObject()
        } else {
            null()
        }
        key("pill")
        if let pill = overlay.pill {
            beginObject()
            key("frame")
            rect(pill.frame, restingY: template ? overlay.restingLayout?.pill?.y : nil)
            key("cornerRadius")
            number(pill.cornerRadius)
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
            rect(bar.frame, restingY: template ? overlay.restingLayout?.progressBar?.y : nil)
            endObject()
        } else {
            null()
        }
        key("queued")
        integer(overlay.queued)
        key("scheduled")
        integer(overlay.scheduled)
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
            if animation.bounces {
                key("curve")
                string("easeOutBounce")
            } else if animation.property == .labelOffset {
                // A rise eases in and out whatever the configured curve.
                key("curve")
                string(Curve.easeInOut.rawValue)
            } else if overlay.curve != .linear {
                key("curve")
                string(overlay.curve.rawValue)
            }
            endObject()
        } else {
            null()
        }
        key("statusBar")
        statusBar(
            overlay.statusBar,
            slots: template
                ? (OverlayTemplate.Slot.statusBarAlpha.rawValue, OverlayTemplate.Slot.statusBarOffset.rawValue) : nil)
        key("held")
        bool(overlay.held)
        key("touch")
        if let heldSince = overlay.heldSince {
            beginObject()
            key("heldSince")
            seconds(heldSince)
            endObject()
        } else {
            null()
        }
        endObject()
    }

    /// The label or the subtitle: its text, frame (moving with the content), measured width and
    /// whether that is wider than the frame.
    private mutating func line(
        _ line: Label?, restingY: Double?, template: Bool, slot: OverlayTemplate.Slot = .contentY
    ) {
        guard let line else { return null() }
        beginObject()
        key("text")
        string(line.text)
        key("frame")
        rect(line.frame, restingY: template ? restingY : nil, slot: slot)
        key("textWidth")
        number(line.textWidth)
        key("truncated")
        bool(line.truncated)
        endObject()
    }

    /// A message as `/messages` shows it: the overlay's summary plus its timing and sender fields.
    mutating func message(_ message: Message) {
        beginObject()
        summary(of: message)
        key("duration")
        if let duration = message.duration { seconds(duration) } else { null() }
        key("immediate")
        bool(message.immediate)
        key("key")
        if let messageKey = message.key { string(messageKey) } else { null() }
        key("priority")
        integer(message.priority.rawValue)
        if message.scheduledFor == nil && message.expires == nil {
            // Most messages are neither scheduled nor expiring: every POST answers one.
            members(#""scheduledFor":null,"expires":null,"expiresAt":null"#)
        } else {
            key("scheduledFor")
            optionalSeconds(message.scheduledFor)
            key("expires")
            if let expires = message.expires { seconds(expires) } else { null() }
            key("expiresAt")
            optionalSeconds(message.state == .queued ? message.expiresAt : nil)
        }
        key("postedAt")
        seconds(message.postedAt)
        key("shownAt")
        optionalSeconds(message.shownAt)
        key("displayStartedAt")
        optionalSeconds(message.displayStartedAt)
        key("endsAt")
        optionalSeconds(message.state.hasEnded ? nil : message.deadline)
        key("endedAt")
        optionalSeconds(message.endedAt)
        endObject()
    }

    /// The fields the overlay's `message` shows, and that every message representation starts with.
    mutating func summary(of message: Message) {
        key("id")
        integer(message.id)
        key("kind")
        string(message.kind.rawValue)
        key("text")
        string(message.text)
        if message.subtitle == nil && message.icon == nil {
            // Most messages have neither: every POST answers one.
            members(#""subtitle":null,"icon":null"#)
        } else {
            key("subtitle")
            if let subtitle = message.subtitle { string(subtitle) } else { null() }
            key("icon")
            if let icon = message.icon { string(icon) } else { null() }
        }
        key("progress")
        optionalNumber(message.progress)
        key("state")
        string(message.state.rawValue)
        readerFields(of: message)
    }

    /// With `restingY`, the y is a template's slot: the resting y plus contentOffset (and for a
    /// label, its offset during a rise).
    mutating func rect(_ rect: Rect, restingY: Double? = nil, slot: OverlayTemplate.Slot = .contentY) {
        beginObject()
        key("x")
        number(rect.x)
        key("y")
        if let restingY { self.slot(slot.rawValue, base: restingY) } else { number(rect.y) }
        key("width")
        number(rect.width)
        key("height")
        number(rect.height)
        endObject()
    }

    mutating func optionalNumber(_ value: Double?) {
        if let value { number(value) } else { null() }
    }

    mutating func optionalSeconds(_ instant: Instant?) {
        if let instant { seconds(instant) } else { null() }
    }
}

/// The overlay as readers receive it: a JSON response with its ETag, a 304, or an SSE event.
struct OverlayEncoder: Sendable {
    /// How much an event stream may hold for a slow client before it keeps only the latest event.
    var streamBufferBytes: Int

    /// Room for an overlay with its status bar, so that encoding one does not grow the buffer: a
    /// shown message's is about 1.1 KB with the reader's side (§14), a pill's with a subtitle 1.4 KB.
    static let overlayCapacity = 1536

    func body(_ overlay: OverlaySnapshot) -> [UInt8] {
        var writer = JSONWriter(capacity: OverlayEncoder.overlayCapacity)
        writer.overlay(overlay)
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

    /// The overlay of `template`'s version with these moving values, without encoding it again.
    func response(_ values: MovingValues, _ template: OverlayTemplate) -> HTTPResponse {
        HTTPResponse(status: 200, headers: template.headers, body: template.render(values))
    }

    func template(_ overlay: OverlaySnapshot) -> OverlayTemplate {
        var writer = JSONWriter(capacity: OverlayEncoder.overlayCapacity)
        writer.overlay(overlay, template: true)
        return OverlayTemplate(
            version: overlay.version, json: writer.bytes, slots: writer.slots,
            headers: [Header.json] + headers(version: overlay.version))
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

/// The overlay JSON of one version, cut where the values that move within a version go.
///
/// Within a version only time moves: `now`, and during an animation contentOffset or alpha (and
/// with contentOffset the y of every frame of the content: its resting y plus the offset), and
/// the status bar's alpha and offset while it hides or shows. Everything else (texts, styles,
/// frames, the animation descriptors) is encoded once per version; a read fills in the numbers.
///
/// A class: a read takes the channel's template out from under the lock, and a reference is one
/// retain where a copy of the struct would be one per array it holds.
final class OverlayTemplate: Sendable {
    enum Slot: Int, Sendable {
        case now, contentOffset, alpha, statusBarAlpha, statusBarOffset
        /// A frame's y: its resting y (the slot's base) plus contentOffset.
        case contentY
        /// A label's y: its resting y plus contentOffset plus the rise's labelOffset.
        case labelY
    }

    let version: UInt64
    let headers: [Header]
    /// The 304 of this version, built once and handed to libmicrohttpd as it is for every
    /// conditional GET that matches (as a C server shares one response object).
    let notModified: HTTPResponse
    private let pieces: [[UInt8]]
    private let slots: [Slot]
    private let bases: [Double]
    private let size: Int

    init(version: UInt64, json: [UInt8], slots: [(offset: Int, tag: Int, base: Double)], headers: [Header]) {
        self.version = version
        self.headers = headers
        var notModified = HTTPResponse(status: 304, headers: headers.filter { $0.name != Header.json.name })
        notModified.prepare()
        self.notModified = notModified
        var pieces: [[UInt8]] = []
        var start = 0
        for slot in slots {
            pieces.append(Array(json[start..<slot.offset]))
            start = slot.offset
        }
        pieces.append(Array(json[start...]))
        self.pieces = pieces
        self.slots = slots.map { Slot(rawValue: $0.tag)! }
        self.bases = slots.map(\.base)
        self.size = json.count
    }

    func render(_ values: MovingValues) -> [UInt8] {
        var writer = JSONWriter(capacity: size + 24 * slots.count)
        for (index, slot) in slots.enumerated() {
            writer.raw(pieces[index])
            switch slot {
            case .now: writer.rawSeconds(values.now)
            case .contentOffset: writer.rawNumber(values.contentOffset)
            case .alpha: writer.rawNumber(values.alpha)
            case .contentY: writer.rawNumber(bases[index] + values.contentOffset)
            case .labelY: writer.rawNumber(bases[index] + values.contentOffset + values.labelOffset)
            case .statusBarAlpha: writer.rawNumber(values.statusBarAlpha)
            case .statusBarOffset: writer.rawNumber(values.statusBarOffset)
            }
        }
        writer.raw(pieces[slots.count])
        return writer.bytes
    }
}
