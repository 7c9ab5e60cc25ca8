import OverlayEngine

/// A template's yield made into the keyed POST it stands for, read by the same field rules as any
/// POST: a pointed string is read as its query parameter would be, a number as a JSON number.
enum TemplateMessage {
    /// Text and subtitle longer than this many characters are cut (a tool's summary may be long).
    static let maxCharacters = MessageRules.maximumTextLength

    /// The POST of `yield`. Every field the template maps is set: one that maps to nothing is
    /// removed (subtitle, icon, progress, click), back to its default (kind `info`, priority the kind's),
    /// or, for `text`, a 422 `template_mismatch` naming where it was looked for.
    static func post(
        _ yield: WebhookTemplate.Yield, priorities: KindTable<Priority>, yieldsToLiveKind: Bool
    ) throws(APIError) -> BatchPost {
        var values: [(name: String, value: FieldValue)] = []
        for field in WebhookTemplate.Field.allCases {
            guard let mapped = yield.values[field] else { continue }
            let name = field.rawValue
            guard let value = mapped else {
                switch field {
                case .text: throw mismatch(yield, .text, "points to nothing")
                case .subtitle, .icon, .progress, .click: values.append((name, .json(.null)))
                case .kind: values.append((name, .text("info")))
                case .key, .priority, .duration: break
                }
                continue
            }
            switch field {
            case .text, .subtitle, .icon, .key, .kind, .click:
                guard var text = TemplateValue.text(of: value) else {
                    throw mismatch(yield, field, "points to \(value.typeName), not text")
                }
                if field == .text || field == .subtitle { text = cut(MessageRules.trimmed(text)) }
                // Text as a JSON string, not as query text: the text "null" is a subtitle, not none.
                values.append((name, .json(.string(text))))
            case .priority, .duration, .progress:
                if case .string(let text) = value {
                    values.append((name, .text(text)))
                } else {
                    values.append((name, .json(value)))
                }
            }
        }
        var input = MessageInput()
        do throws(APIError) {
            try FieldReader(values: values).read(MessageFields.post, into: &input)
            try MessageFields.checkTogether(input)
        } catch {
            throw renamed(error, yield)
        }
        if yield.values[.priority] != nil, input.priority == nil {
            input.priority = priorities[input.kind ?? .info]
        }
        return BatchPost(input, yieldsToLiveKind: yieldsToLiveKind && input.kind == .sending)
    }

    /// Text cut to `maxCharacters` (255 and `…`), and to the bytes a text may hold.
    static func cut(_ text: String) -> String {
        guard text.count > maxCharacters || text.utf8.count > MessageRules.maximumTextBytes else { return text }
        var kept = Substring(text.prefix(maxCharacters - 1))
        while kept.utf8.count + "…".utf8.count > MessageRules.maximumTextBytes { kept = kept.dropLast() }
        return kept + "…"
    }

    private static func mismatch(
        _ yield: WebhookTemplate.Yield, _ field: WebhookTemplate.Field, _ reason: String
    )
        -> APIError
    {
        let pointer = yield.pointers[field] ?? field.rawValue
        let place = yield.origin.isEmpty ? "the body" : yield.origin
        return APIError(
            status: 422, code: "template_mismatch",
            message: "the template's \(field.rawValue) (\(pointer)) \(reason) in \(place)", field: pointer)
    }

    /// A field rule's refusal, naming where in the body the value came from.
    private static func renamed(_ error: APIError, _ yield: WebhookTemplate.Yield) -> APIError {
        guard let name = error.field, let field = WebhookTemplate.Field(rawValue: name) else { return error }
        var renamed = error
        let source = yield.sources[field] ?? (yield.origin.isEmpty ? name : "\(yield.origin) \(name)")
        renamed.field = source
        renamed.message = "\(error.message) (from \(source))"
        return renamed
    }
}
