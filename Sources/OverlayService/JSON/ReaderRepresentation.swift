import OverlayEngine

/// The JSON of the reader's side (docs/MODEL.md §14): a message's `click`, `actions`,
/// `accessibilityLabel` and `taps`, the overlay's announcement, and the event stream's `event: tap`.
extension JSONWriter {
    /// `"click", "actions", "accessibilityLabel", "taps"`, members of every message's JSON.
    mutating func readerFields(of message: Message) {
        if message.hasNoReaderFields {
            // Most messages have none: every POST answers one.
            members(#""click":null,"actions":[],"accessibilityLabel":null,"taps":[]"#)
            return
        }
        key("click")
        if let click = message.click { string(click) } else { null() }
        key("actions")
        beginArray()
        for action in message.actions {
            beginObject()
            key("id")
            string(action.id)
            key("label")
            string(action.label)
            key("url")
            if let url = action.url { string(url) } else { null() }
            endObject()
        }
        endArray()
        key("accessibilityLabel")
        if let label = message.accessibilityLabel { string(label) } else { null() }
        key("taps")
        beginArray()
        for tap in message.taps {
            beginObject()
            key("at")
            seconds(tap.at)
            key("action")
            if let action = tap.action { string(action) } else { null() }
            endObject()
        }
        endArray()
    }

    /// `"announcement", "announcementVersion"`, members of the overlay after its `message`. Both
    /// change only with the version: a template holds them as they are.
    mutating func announcement(of overlay: OverlaySnapshot) {
        key("announcement")
        if let announcement = overlay.announcement { string(announcement) } else { null() }
        key("announcementVersion")
        integer(overlay.announcementVersion)
    }

    /// `{"message", "action", "at"}`: a tap as the event stream tells it.
    mutating func tap(_ tapped: MessageTap) {
        beginObject()
        key("message")
        integer(tapped.message)
        key("action")
        if let action = tapped.tap.action { string(action) } else { null() }
        key("at")
        seconds(tapped.tap.at)
        endObject()
    }
}

extension OverlayEncoder {
    /// `event: tap` and its `data:`, without an `id:` line: a tap follows its version's overlay
    /// event, and a reconnecting reader's `Last-Event-ID` stays that version (never replayed).
    func tapEvent(_ tapped: MessageTap) -> [UInt8] {
        var writer = JSONWriter(capacity: 96)
        writer.tap(tapped)
        return Array("event: tap\ndata: ".utf8) + writer.bytes + Array("\n\n".utf8)
    }
}
