import OverlayEngine

/// The fields of a message, declared once for every way a message is sent (JSON, query, form and
/// multipart bodies, plain text as `text`): POST takes them all, PATCH all but the two that only
/// a new message can have. A new message field is one row here (and its place in `MessageInput`).
package enum MessageFields {
    package static let kind = Field<MessageKind>.choice("kind")
    package static let text = Field.string("text")
    /// Null removes it (PATCH); the engine trims it and checks its length, as the text's.
    package static let subtitle = Field.string("subtitle").nullable
    /// Null removes it (PATCH); the engine checks it is 1–4 grapheme clusters.
    package static let icon = Field.string("icon").nullable
    package static let progress = Field.number("progress").nullable
    /// Checked on the number as sent, before rounding to whole nanoseconds (the engine checks the
    /// rounded one): 3600.0000000000005 is over 3600.
    package static let duration = Field<Interval>("duration") { (value) throws(FieldProblem) in
        let seconds = try value.number()
        let limit = MessageRules.maximumDuration.seconds
        guard seconds > 0 && seconds <= limit else {
            throw FieldProblem(.invalid, "must be greater than 0 and at most \(Int(limit)) seconds")
        }
        return .seconds(seconds)
    }
    package static let immediate = Field.bool("immediate")
    package static let key = Field.string("key")
    package static let delay = Field.wait("delay")
    package static let at = Field.time("at")
    package static let expires = Field.wait("expires")
    package static let priority = Field.priority("priority")
    /// Null removes it (PATCH); the engine checks it is a URL a reader may open.
    package static let click = Field.string("click").nullable
    package static let actions = Field.actions("actions")
    /// Null removes it (PATCH); the engine trims it and checks its length, as the text's.
    package static let accessibilityLabel = Field.string("accessibilityLabel").nullable

    package static let post = FieldSet<MessageInput>(
        text: "text",
        [
            FieldRule(kind) { $0.kind = $1 }, FieldRule(text) { $0.text = $1 },
            FieldRule(progress) { $0.progress = $1 }, FieldRule(duration) { $0.duration = $1 },
            FieldRule(immediate) { $0.immediate = $1 }, FieldRule(key) { $0.key = $1 },
            // Last: a given name is looked for in this order, and most messages have neither.
            FieldRule(subtitle) { $0.subtitle = $1 }, FieldRule(icon) { $0.icon = $1 },
            FieldRule(delay) { $0.delay = $1 }, FieldRule(at) { $0.at = $1 },
            FieldRule(expires) { $0.expires = $1 }, FieldRule(priority) { $0.priority = $1 },
            FieldRule(click) { $0.click = $1 }, FieldRule(actions) { $0.actions = $1 },
            FieldRule(accessibilityLabel) { $0.accessibilityLabel = $1 },
        ])

    package static let patch = FieldSet<MessageInput>(
        text: "text",
        [
            FieldRule(kind) { $0.kind = $1 }, FieldRule(text) { $0.text = $1 },
            FieldRule(progress) { $0.progress = $1 }, FieldRule(duration) { $0.duration = $1 },
            .refused("immediate", "cannot be changed after posting"),
            .refused("key", "cannot be changed after posting"),
            FieldRule(subtitle) { $0.subtitle = $1 }, FieldRule(icon) { $0.icon = $1 },
            FieldRule(delay) { $0.delay = $1 }, FieldRule(at) { $0.at = $1 },
            FieldRule(expires) { $0.expires = $1 }, FieldRule(priority) { $0.priority = $1 },
            FieldRule(click) { $0.click = $1 }, FieldRule(actions) { $0.actions = $1 },
            FieldRule(accessibilityLabel) { $0.accessibilityLabel = $1 },
        ])

    /// The rules between fields: a time to join the queue is a `delay` or an `at`, never both.
    package static func checkTogether(_ input: MessageInput) throws(APIError) {
        if input.delay != nil && input.at != nil {
            throw APIError.badRequest("at cannot be given with delay: give one of them", field: "at")
        }
    }
}
