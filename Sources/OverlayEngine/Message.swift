/// What a message reports: the states of an app's send queue and its downloads (MODEL §2).
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
    /// Swiped away by the person reading it (`POST /overlay/dismiss`).
    case dismissed

    public var hasEnded: Bool {
        switch self {
        case .queued, .showing: false
        case .done, .cancelled, .preempted, .expired, .dismissed: true
        }
    }
}

/// A message as the engine keeps it.
///
/// Every field can be set, so that a store can rebuild a message from its columns; a copy changed
/// outside the engine changes nothing in it.
public struct Message: Hashable, Sendable {
    public var id: Int64
    public var kind: MessageKind
    public var text: String
    /// A second, smaller line under the text (drawn in `fullWidth` and `pill`).
    public var subtitle: String? {
        get { extras?.subtitle }
        set { extras = Extras.make(subtitle: newValue, icon: icon) }
    }
    /// An emoji or a few characters drawn beside the text when the kind shows no spinner.
    public var icon: String? {
        get { extras?.icon }
        set { extras = Extras.make(subtitle: subtitle, icon: newValue) }
    }
    /// The subtitle and the icon, boxed: most messages have neither, and a message is copied
    /// several times per write, so they cost one nil pointer there instead of two strings.
    private var extras: Extras?
    public var progress: Double?
    /// The duration the sender asked for; `nil` means the kind's default.
    public var duration: Interval?
    public var immediate: Bool
    public var key: String?
    public var state: MessageState
    public var postedAt: Instant
    /// When it last became the shown message (the start of its show animation, or of its replacement).
    public var shownAt: Instant?
    /// When its display time started: the end of the show animation or the moment it replaced another.
    public var displayStartedAt: Instant?
    /// When its display time ends, once it has started.
    public var deadline: Instant?
    /// Whether reaching `deadline` ends it as `expired` (a sticky message) rather than `done`.
    public var expiresAtDeadline: Bool
    public var endedAt: Instant?
    /// The message's place in the queue: smaller shows first (see `OverlayEngine.enqueue`).
    public var queueOrder: Int64 = 0

    /// A message with the given fields and every other one empty, as a store starts one it reads.
    public init(id: Int64, kind: MessageKind, text: String, state: MessageState, postedAt: Instant) {
        self.id = id
        self.kind = kind
        self.text = text
        self.immediate = false
        self.state = state
        self.postedAt = postedAt
        self.expiresAtDeadline = false
    }

    /// A new queued message from an input that `MessageRules.validated` accepted.
    init(id: Int64, input: MessageInput, postedAt: Instant) {
        let kind = input.kind ?? .info
        self.id = id
        self.kind = kind
        self.text = input.text ?? ""
        self.extras = Extras.make(subtitle: input.subtitle ?? nil, icon: input.icon ?? nil)
        self.progress = (input.progress ?? nil) ?? (kind == .progress ? 0 : nil)
        self.duration = input.duration
        self.immediate = input.immediate ?? false
        self.key = input.key
        self.state = .queued
        self.postedAt = postedAt
        self.expiresAtDeadline = false
    }
}

/// A message's subtitle and icon, when it has one of them (`Message.extras`).
private final class Extras: Hashable, Sendable {
    let subtitle: String?
    let icon: String?

    /// Nil when there is neither, without allocating (a failable class init allocates first).
    static func make(subtitle: String?, icon: String?) -> Extras? {
        subtitle == nil && icon == nil ? nil : Extras(subtitle: subtitle, icon: icon)
    }

    private init(subtitle: String?, icon: String?) {
        self.subtitle = subtitle
        self.icon = icon
    }

    static func == (lhs: Extras, rhs: Extras) -> Bool { lhs.subtitle == rhs.subtitle && lhs.icon == rhs.icon }
    func hash(into hasher: inout Hasher) {
        hasher.combine(subtitle)
        hasher.combine(icon)
    }
}
