/// What a message reports (seed 001).
public enum MessageKind: String, CaseIterable, Hashable, Sendable {
    case sending
    case sent
    case failed
    case progress
    case info

    /// Whether the overlay shows an activity spinner beside the label.
    public var showsActivity: Bool { self == .sending }
}

/// Where a message is in its life.
public enum MessageState: String, CaseIterable, Hashable, Sendable {
    case queued
    case showing
    case done
    case cancelled
    case preempted
    case expired

    public var hasEnded: Bool {
        switch self {
        case .queued, .showing: false
        case .done, .cancelled, .preempted, .expired: true
        }
    }
}

/// A message as the engine keeps it.
public struct Message: Hashable, Sendable {
    public let id: Int64
    public internal(set) var kind: MessageKind
    public internal(set) var text: String
    public internal(set) var progress: Double?
    /// The duration the sender asked for; `nil` means the kind's default.
    public internal(set) var duration: Interval?
    public let immediate: Bool
    public let key: String?
    public internal(set) var state: MessageState
    public let postedAt: Instant
    /// When it last became the shown message (the start of its show animation, or of its replacement).
    public internal(set) var shownAt: Instant?
    /// When its display time started: the end of the show animation or the moment it replaced another.
    public internal(set) var displayStartedAt: Instant?
    /// When its display time ends, once it has started.
    public internal(set) var deadline: Instant?
    /// Whether reaching `deadline` ends it as `expired` (a sticky message) rather than `done`.
    public internal(set) var expiresAtDeadline: Bool
    public internal(set) var endedAt: Instant?
    /// The message's place in the queue: smaller shows first (see `OverlayEngine.enqueue`).
    public internal(set) var queueOrder: Int64 = 0

    /// A new queued message from an input that `MessageRules.validateNew` accepted.
    init(id: Int64, input: MessageInput, postedAt: Instant) {
        let kind = input.kind ?? .info
        self.id = id
        self.kind = kind
        self.text = input.text ?? ""
        self.progress = (input.progress ?? nil) ?? (kind == .progress ? 0 : nil)
        self.duration = input.duration
        self.immediate = input.immediate ?? false
        self.key = input.key
        self.state = .queued
        self.postedAt = postedAt
        self.expiresAtDeadline = false
    }
}

extension Message {
    /// A message read back from a store. Fields that only mean something while it is shown (its
    /// timer) start empty.
    public static func stored(
        id: Int64, kind: MessageKind, text: String, progress: Double?, duration: Interval?, immediate: Bool,
        key: String?, state: MessageState, postedAt: Instant, endedAt: Instant?, queueOrder: Int64
    ) -> Message {
        var message = Message(
            id: id,
            input: MessageInput(kind: kind, text: text, duration: duration, immediate: immediate, key: key),
            postedAt: postedAt)
        message.progress = progress
        message.state = state
        message.endedAt = endedAt
        message.queueOrder = queueOrder
        return message
    }
}

/// What a store hands back to rebuild one channel's engine.
public struct RestoredState: Hashable, Sendable {
    public var version: UInt64
    public var nextID: Int64
    public var orientation: Orientation
    /// The device the channel was on, if the configuration still knows it.
    public var device: DeviceProfile?
    /// Messages that were queued or shown.
    public var live: [Message]
    /// Ended messages, oldest first.
    public var history: [Message]

    public init(
        version: UInt64, nextID: Int64, orientation: Orientation, device: DeviceProfile?, live: [Message],
        history: [Message]
    ) {
        self.version = version
        self.nextID = nextID
        self.orientation = orientation
        self.device = device
        self.live = live
        self.history = history
    }
}

/// What a sender sends: a new message (POST) or a change to one (PATCH, or POST with a known `key`).
/// Only the fields that are set take part; the engine checks every rule of spec §2.
public struct MessageInput: Hashable, Sendable {
    public var kind: MessageKind?
    public var text: String?
    /// `.some(nil)` is an explicit `null`: no progress bar.
    public var progress: Double??
    public var duration: Interval?
    public var immediate: Bool?
    public var key: String?

    public init(
        kind: MessageKind? = nil,
        text: String? = nil,
        progress: Double?? = nil,
        duration: Interval? = nil,
        immediate: Bool? = nil,
        key: String? = nil
    ) {
        self.kind = kind
        self.text = text
        self.progress = progress
        self.duration = duration
        self.immediate = immediate
        self.key = key
    }

    /// Whether the input sets nothing at all.
    public var isEmpty: Bool { self == MessageInput() }
}

/// The ranges of spec §2, in one place for drafts and patches alike.
public enum MessageRules {
    public static let maximumTextLength = 256
    public static let maximumKeyLength = 128
    public static let maximumDuration = Interval.seconds(3600)

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
        return .success(input)
    }

    /// The text trimmed of surrounding white space, if 1–256 characters remain.
    public static func text(_ text: String) -> Result<String, EngineError> {
        let trimmed = trimmed(text)
        if trimmed.isEmpty {
            return .failure(.invalidField(field: "text", reason: "must not be empty"))
        }
        // Characters are never more than UTF-8 bytes: a short text needs no counting.
        if trimmed.utf8.count > maximumTextLength && trimmed.count > maximumTextLength {
            return .failure(.invalidField(field: "text", reason: "must be at most \(maximumTextLength) characters"))
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

    public static func check(key: String) -> EngineError? {
        key.isEmpty || key.count > maximumKeyLength
            ? .invalidField(field: "key", reason: "must be 1 to \(maximumKeyLength) characters") : nil
    }

    static func trimmed(_ text: String) -> String {
        // The common case, text that starts and ends with a visible ASCII character, needs no
        // walk over its characters.
        if let first = text.utf8.first, let last = text.utf8.last, (0x21...0x7E).contains(first),
            (0x21...0x7E).contains(last)
        {
            return text
        }
        guard let first = text.firstIndex(where: { !$0.isWhitespace }),
            let last = text.lastIndex(where: { !$0.isWhitespace })
        else { return "" }
        return String(text[first...last])
    }
}

/// Why the engine refused an event. Each maps to one HTTP status.
public enum EngineError: Error, Hashable, Sendable {
    /// A field is out of its range (422).
    case invalidField(field: String, reason: String)
    /// No message has this id, or it has left the history (404).
    case messageNotFound(id: Int64)
    /// The message has ended and cannot change (409).
    case messageEnded(id: Int64, state: MessageState)
    /// The queue holds `maxQueue` waiting messages (503); the shown one ends in about `retryAfter`.
    case queueFull(limit: Int, retryAfter: Interval)
}
