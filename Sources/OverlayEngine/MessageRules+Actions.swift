// The reader's fields of a message (docs/MODEL.md §14): what a tap opens, the buttons, and what
// VoiceOver reads.
extension MessageRules {
    public static let maximumURLLength = 2048
    public static let maximumActions = 3
    public static let maximumActionIDLength = 32
    public static let maximumActionLabelLength = 40
    /// A label's bytes, for the reason a text has a byte bound: 40 characters of up to 4 bytes.
    public static let maximumActionLabelBytes = 160
    /// Schemes that run code or read local data where a reader opens them: a reader must be able
    /// to open any URL overlayd hands it without looking at it again.
    public static let refusedSchemes: Set<String> = ["javascript", "data", "file", "vbscript", "blob"]

    /// The input's reader fields checked (labels trimmed), or the first rule one breaks.
    static func validatedReaderFields(_ input: MessageInput) -> Result<MessageInput, EngineError> {
        var input = input
        if case .some(.some(let click)) = input.click, let error = check(url: click, field: "click") {
            return .failure(error)
        }
        if let actions = input.actions {
            switch self.actions(actions) {
            case .success(let checked): input.actions = checked
            case .failure(let error): return .failure(error)
            }
        }
        if case .some(.some(let label)) = input.accessibilityLabel {
            switch text(label, field: "accessibilityLabel") {
            case .success(let trimmed): input.accessibilityLabel = .some(trimmed)
            case .failure(let error): return .failure(error)
            }
        }
        return .success(input)
    }

    /// A URL a reader may open: at most 2048 characters, all of them visible ASCII (a space, a
    /// control character or any other character is sent percent-encoded), starting with a scheme
    /// (`https:`, or an app's own) that is none of `refusedSchemes` in any case. overlayd never
    /// fetches it.
    public static func check(url: String, field: String) -> EngineError? {
        let bytes = url.utf8
        guard bytes.count <= maximumURLLength else {
            return .invalidField(field: field, reason: "must be at most \(maximumURLLength) characters")
        }
        // Every byte visible ASCII: a blank or a control character before a scheme is how
        // `javascript:` gets past a browser's own check.
        guard bytes.allSatisfy({ (0x21...0x7E).contains($0) }) else {
            return .invalidField(
                field: field,
                reason: "must hold no space, control character or non-ASCII character (percent-encode them)")
        }
        guard let scheme = scheme(of: bytes) else {
            return .invalidField(field: field, reason: "must start with a scheme, such as https:")
        }
        guard !refusedSchemes.contains(scheme) else {
            return .invalidField(field: field, reason: "must not use the \(scheme): scheme")
        }
        return nil
    }

    /// The scheme of RFC 3986 (a letter, then letters, digits, `+`, `-` or `.`, up to the first
    /// `:`), lower-cased; nil when the text does not start with one.
    private static func scheme(of bytes: String.UTF8View) -> String? {
        guard let colon = bytes.firstIndex(of: UInt8(ascii: ":")), colon != bytes.startIndex else { return nil }
        let name = bytes[..<colon]
        guard let first = name.first, isLetter(first) else { return nil }
        guard
            name.allSatisfy({
                isLetter($0) || (0x30...0x39).contains($0) || $0 == UInt8(ascii: "+") || $0 == UInt8(ascii: "-")
                    || $0 == UInt8(ascii: ".")
            })
        else { return nil }
        return String(decoding: name.map { $0 | 0x20 }, as: UTF8.self)
    }

    private static func isLetter(_ byte: UInt8) -> Bool {
        (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    /// The actions with their labels trimmed, if there are at most 3, each id is 1–32 of
    /// `A-Z a-z 0-9 _ -` and unique, each label 1–40 characters and each url one `check(url:)`
    /// takes. A refusal names the element (`actions[1].label`), counted from 0.
    public static func actions(_ actions: [MessageAction]) -> Result<[MessageAction], EngineError> {
        guard actions.count <= maximumActions else {
            return .failure(.invalidField(field: "actions", reason: "must hold at most \(maximumActions) actions"))
        }
        var checked: [MessageAction] = []
        checked.reserveCapacity(actions.count)
        for (index, action) in actions.enumerated() {
            let path = "actions[\(index)]"
            if let error = check(actionID: action.id, field: "\(path).id") { return .failure(error) }
            if let earlier = checked.firstIndex(where: { $0.id == action.id }) {
                return .failure(
                    .invalidField(field: "\(path).id", reason: "repeats the id of actions[\(earlier)]: ids are unique"))
            }
            let label = trimmed(action.label)
            guard !label.isEmpty else {
                return .failure(.invalidField(field: "\(path).label", reason: "must not be empty"))
            }
            if label.utf8.count > maximumActionLabelBytes
                || (label.utf8.count > maximumActionLabelLength && label.count > maximumActionLabelLength)
            {
                return .failure(
                    .invalidField(
                        field: "\(path).label",
                        reason: "must be at most \(maximumActionLabelLength) characters and "
                            + "\(maximumActionLabelBytes) bytes of UTF-8"))
            }
            if let url = action.url, let error = check(url: url, field: "\(path).url") { return .failure(error) }
            checked.append(MessageAction(id: action.id, label: label, url: action.url))
        }
        return .success(checked)
    }

    /// An action's id: 1–32 of `A-Z a-z 0-9 _ -`, what a reader sends back in a tap.
    public static func check(actionID id: String, field: String) -> EngineError? {
        let bytes = id.utf8
        let valid =
            !bytes.isEmpty && bytes.count <= maximumActionIDLength
            && bytes.allSatisfy {
                isLetter($0) || (0x30...0x39).contains($0) || $0 == UInt8(ascii: "_") || $0 == UInt8(ascii: "-")
            }
        return valid
            ? nil
            : .invalidField(field: field, reason: "must be 1 to \(maximumActionIDLength) of A-Z a-z 0-9 _ -")
    }
}
