/// The ranges of a message's fields (docs/BEHAVIOUR.md), in one place for new messages and
/// changes alike.
public enum MessageRules {
    public static let maximumTextLength = 256
    /// Bytes of UTF-8 a text or a subtitle may hold besides its 256 characters: a character may
    /// carry any number of combining marks, so characters alone bound no memory (a text of marks
    /// would be about 7 KB). Four bytes a character is what any real script needs.
    public static let maximumTextBytes = 1024
    public static let maximumKeyLength = 128
    /// A key's bytes, for the same reason: 128 characters of up to 4 bytes each.
    public static let maximumKeyBytes = 512
    /// An icon's bytes: enough for four of the longest emoji (a family joined by ZWJs is 25).
    public static let maximumIconBytes = 128
    /// An icon is a glyph or a few (an emoji, a flag, "OK"), never a word: it sits in a 16-point square.
    public static let maximumIconCharacters = 4
    public static let maximumDuration = Interval.seconds(3600)
    /// The longest a message may be scheduled ahead, or wait before it expires.
    public static let maximumWait = Interval.seconds(7 * 86400)

    /// The input with its text trimmed, or the first rule it breaks. A new message needs a text.
    public static func validated(_ input: MessageInput, isNew: Bool) -> Result<MessageInput, EngineError> {
        var input = input
        if let text = input.text {
            switch self.text(text) {
            case .success(let trimmed): input.text = trimmed
            case .failure(let error): return .failure(error)
            }
        } else if isNew {
            return .failure(.invalidField(field: "text", reason: "is required"))
        }
        if case .some(.some(let subtitle)) = input.subtitle {
            switch self.text(subtitle, field: "subtitle") {
            case .success(let trimmed): input.subtitle = .some(trimmed)
            case .failure(let error): return .failure(error)
            }
        }
        if case .some(.some(let icon)) = input.icon {
            switch self.icon(icon) {
            case .success(let trimmed): input.icon = .some(trimmed)
            case .failure(let error): return .failure(error)
            }
        }
        if let error = check(progress: input.progress ?? nil) ?? check(duration: input.duration) {
            return .failure(error)
        }
        // A progress message always has a progress: an explicit null is refused, not taken as 0.
        if isNew, input.kind == .progress, case .some(.none) = input.progress {
            return .failure(.invalidField(field: "progress", reason: "a progress message needs a progress"))
        }
        if let key = input.key, let error = check(key: key) {
            return .failure(error)
        }
        if let error = check(delay: input.delay, field: "delay") ?? check(delay: input.expires, field: "expires") {
            return .failure(error)
        }
        if input.delay != nil && input.at != nil {
            return .failure(.invalidField(field: "at", reason: "cannot be given with delay"))
        }
        // Most inputs set none of the reader's fields: nothing to look at then.
        guard input.click != nil || input.actions != nil || input.accessibilityLabel != nil else {
            return .success(input)
        }
        return validatedReaderFields(input)
    }

    /// The text (or subtitle) trimmed of surrounding white space, if 1–256 characters remain
    /// (counted, and later measured, on what is kept).
    public static func text(_ text: String, field: String = "text") -> Result<String, EngineError> {
        let trimmed = trimmed(text)
        if trimmed.isEmpty {
            return .failure(.invalidField(field: field, reason: "must not be empty"))
        }
        // Characters are never more than UTF-8 bytes: a short text needs no counting.
        if trimmed.utf8.count > maximumTextLength && trimmed.count > maximumTextLength {
            return .failure(.invalidField(field: field, reason: "must be at most \(maximumTextLength) characters"))
        }
        if trimmed.utf8.count > maximumTextBytes {
            return .failure(.invalidField(field: field, reason: "must be at most \(maximumTextBytes) bytes of UTF-8"))
        }
        return .success(trimmed)
    }

    /// The icon trimmed of surrounding white space, if 1–4 grapheme clusters remain (a family
    /// emoji joined by ZWJs, or a flag, is one).
    public static func icon(_ icon: String) -> Result<String, EngineError> {
        let trimmed = trimmed(icon)
        // A cluster is at least one scalar: 4 scalars or fewer need no grapheme walk.
        let clusters = trimmed.unicodeScalars.count <= maximumIconCharacters ? nil : trimmed.count
        if trimmed.isEmpty || (clusters ?? 0) > maximumIconCharacters || trimmed.utf8.count > maximumIconBytes {
            return .failure(
                .invalidField(
                    field: "icon",
                    reason: "must be 1 to \(maximumIconCharacters) characters (grapheme clusters) "
                        + "and at most \(maximumIconBytes) bytes of UTF-8"))
        }
        return .success(trimmed)
    }

    public static func check(progress: Double?) -> EngineError? {
        guard let progress else { return nil }
        return progress >= 0 && progress <= 1
            ? nil : .invalidField(field: "progress", reason: "must be between 0 and 1")
    }

    public static func check(duration: Interval?) -> EngineError? {
        guard let duration else { return nil }
        return duration > .zero && duration <= maximumDuration
            ? nil : .invalidField(field: "duration", reason: "must be greater than 0 and at most 3600 seconds")
    }

    /// A `delay` or an `expires`: more than 0, at most 7 days.
    public static func check(delay: Interval?, field: String) -> EngineError? {
        guard let delay else { return nil }
        return delay > .zero && delay <= maximumWait
            ? nil : .invalidField(field: field, reason: "must be greater than 0 and at most 7 days (604800 seconds)")
    }

    public static func check(key: String) -> EngineError? {
        key.isEmpty || key.utf8.count > maximumKeyBytes || key.count > maximumKeyLength
            ? .invalidField(
                field: "key",
                reason: "must be 1 to \(maximumKeyLength) characters and at most \(maximumKeyBytes) bytes of UTF-8")
            : nil
    }

    /// The text without the grapheme clusters at either end that are white space through and
    /// through (Unicode's White_Space). `Character.isWhitespace` looks at the first scalar only,
    /// and would take " \u{301}" (a space carrying an accent) and the accent with it.
    public static func trimmed(_ text: String) -> String {
        // The common case, text that starts and ends with a visible ASCII character, needs no
        // walk over its characters.
        if let first = text.utf8.first, let last = text.utf8.last, (0x21...0x7E).contains(first),
            (0x21...0x7E).contains(last)
        {
            return text
        }
        guard let first = text.firstIndex(where: { !isBlank($0) }), let last = text.lastIndex(where: { !isBlank($0) })
        else { return "" }
        return String(text[first...last])
    }

    private static func isBlank(_ character: Character) -> Bool {
        character.unicodeScalars.allSatisfy(\.properties.isWhitespace)
    }
}
