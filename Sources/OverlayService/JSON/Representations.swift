import MicroHTTP
import OverlayEngine

/// The JSON shapes of MODEL §5, written in the order MODEL §5 shows them; the overlay ends with the
/// status bar under it and whether that holds it (docs/STATUSBAR.md).
extension JSONWriter {
    /// The overlay. The values that move within a version are left as slots for a template
    /// (`OverlayTemplate`); with `filledWith`, they are written as they are at its instant, as the
    /// template would be filled in with them: one mapping (`Slot.number`), so every path gives
    /// the same bytes.
    mutating func overlay(_ overlay: OverlaySnapshot, filledWith values: MovingValues? = nil) {
        beginObject()
        key("version")
        integer(overlay.version)
        key("now")
        moving(.now, base: 0, values)
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
        moving(.contentOffset, base: 0, values)
        key("alpha")
        moving(.alpha, base: 0, values)
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
        line(overlay.label, restingY: overlay.restingLayout?.label.y, slot: .labelY, values)
        key("subtitle")
        line(overlay.subtitle, restingY: overlay.restingLayout?.subtitle?.y, values)
        key("outgoing")
        if let outgoing = overlay.outgoing {
            beginObject()
            key("text")
            string(outgoing.text)
            key("frame")
            rect(outgoing.frame, restingY: overlay.outgoingBaseY, slot: .labelY, values)
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
            rect(accessory.frame, restingY: overlay.restingLayout?.accessory?.y, values)
            endObject()
        } else {
            null()
        }
        key("pill")
        if let pill = overlay.pill {
            beginObject()
            key("frame")
            rect(pill.frame, restingY: overlay.restingLayout?.pill?.y, values)
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
            rect(bar.frame, restingY: overlay.restingLayout?.progressBar?.y, values)
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
        statusBar(overlay.statusBar, inOverlay: true, values)
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
        _ line: Label?, restingY: Double?, slot: OverlayTemplate.Slot = .contentY, _ values: MovingValues?
    ) {
        guard let line else { return null() }
        beginObject()
        key("text")
        string(line.text)
        key("frame")
        rect(line.frame, restingY: restingY, slot: slot, values)
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

    /// With `restingY`, the y moves: the resting y plus contentOffset (and for a label, its offset
    /// during a rise), a template's slot or, with `values`, that sum at their instant.
    mutating func rect(
        _ rect: Rect, restingY: Double? = nil, slot: OverlayTemplate.Slot = .contentY, _ values: MovingValues? = nil
    ) {
        beginObject()
        key("x")
        number(rect.x)
        key("y")
        if let restingY { moving(slot, base: restingY, values) } else { number(rect.y) }
        key("width")
        number(rect.width)
        key("height")
        number(rect.height)
        endObject()
    }

    /// A value that moves within a version: a slot, or with `values` its value at their instant.
    mutating func moving(_ slot: OverlayTemplate.Slot, base: Double, _ values: MovingValues?) {
        guard let values else { return self.slot(slot.rawValue, base: base) }
        if slot == .now { seconds(values.now) } else { number(slot.number(values, base: base)) }
    }

    mutating func optionalNumber(_ value: Double?) {
        if let value { number(value) } else { null() }
    }

    mutating func optionalSeconds(_ instant: Instant?) {
        if let instant { seconds(instant) } else { null() }
    }
}
