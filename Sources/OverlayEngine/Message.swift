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
    /// Waiting for its time (`delay` or `at`): not in the queue yet.
    case scheduled
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
        case .scheduled, .queued, .showing: false
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
        get { boxed?.value.subtitle }
        set { extras.subtitle = newValue }
    }
    /// An emoji or a few characters drawn beside the text when the kind shows no spinner.
    public var icon: String? {
        get { boxed?.value.icon }
        set { extras.icon = newValue }
    }
    /// When a scheduled message joins the queue (it stays once it has joined, as a record).
    public var scheduledFor: Instant? {
        get { boxed?.value.scheduledFor }
        set { extras.scheduledFor = newValue }
    }
    /// How long it may wait in the queue before it ends `expired`, counted from joining it.
    public var expires: Interval? {
        get { boxed?.value.expires }
        set { extras.expires = newValue }
    }
    /// When it joined the queue: when posted, or when its scheduled time came; nil while it
    /// waits for it (and if it never joined). Kept only for a scheduled one: the others joined
    /// when posted, and a message with no rare field allocates nothing.
    public var joinedAt: Instant? {
        get { boxed?.value.joinedAt ?? (boxed?.value.scheduledFor == nil ? postedAt : nil) }
        // A store sets every column: a join time that says what the others already do is not kept.
        set { extras.joinedAt = newValue == postedAt && extras.scheduledFor == nil ? nil : newValue }
    }
    /// When it ends `expired` if it is still waiting: `joinedAt + expires`, until it is first shown.
    public var expiresAt: Instant? {
        get { boxed?.value.expiresAt }
        set { extras.expiresAt = newValue }
    }
    /// What a tap on the overlay opens (a URL with a scheme); nil for nothing.
    public var click: String? {
        get { boxed?.value.click }
        set { extras.click = newValue }
    }
    /// The buttons a reader may draw beside the message, at most 3.
    public var actions: [MessageAction] {
        get { boxed?.value.actions ?? [] }
        set { extras.actions = newValue }
    }
    /// What VoiceOver reads instead of the announcement made of kind, text, subtitle and progress.
    public var accessibilityLabel: String? {
        get { boxed?.value.accessibilityLabel }
        set { extras.accessibilityLabel = newValue }
    }
    /// The readers' last taps on it, oldest first, at most `Tap.kept`.
    public var taps: [Tap] {
        get { boxed?.value.taps ?? [] }
        set { extras.taps = newValue }
    }
    /// Whether it has none of the reader's fields (`click`, `actions`, `accessibilityLabel`,
    /// `taps`): the answer most messages give, which the JSON writes without looking at each.
    public var hasNoReaderFields: Bool {
        guard let box = boxed else { return true }
        return box.value.click == nil && box.value.actions.isEmpty && box.value.accessibilityLabel == nil
            && box.value.taps.isEmpty
    }
    /// The fields most messages leave empty, boxed: a message is copied several times per write.
    /// Read through the box (`boxed?.value.subtitle`), so that a message without them makes no
    /// empty `MessageExtras` to read one field of.
    private var boxed: Boxed<MessageExtras>?
    private var extras: MessageExtras {
        get { boxed?.value ?? MessageExtras() }
        set { boxed = Boxed.make(newValue, empty: MessageExtras()) }
    }
    /// Whether it has been the shown message: `expires` then no longer applies, even once it is
    /// back in the queue (a sticky message an immediate one put back).
    public var hasBeenShown = false
    /// Where it stands among the waiting messages: the sender's `requestedPriority`, or its kind's.
    public var priority: Priority = .default
    /// The priority the sender gave; nil follows the kind (`EngineConfiguration.priorities`).
    public var requestedPriority: Priority?
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
        self.boxed = Boxed.make(
            MessageExtras(
                subtitle: input.subtitle ?? nil, icon: input.icon ?? nil, expires: input.expires,
                click: input.click ?? nil, actions: input.actions ?? [],
                accessibilityLabel: input.accessibilityLabel ?? nil),
            empty: MessageExtras())
        self.requestedPriority = input.priority
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
    /// The bytes of UTF-8 its strings hold (text, subtitle, icon, key, and the reader's fields:
    /// click, actions, accessibility label, taps): what the containers that hold it add up, so
    /// that a server can bound its memory without walking its messages.
    public var textBytes: Int {
        text.utf8.count + (key?.utf8.count ?? 0) + (boxed?.value.textBytes ?? 0)
    }

    /// It becomes the shown message: from now on `expires` no longer applies.
    mutating func markShown(at time: Instant) {
        state = .showing
        shownAt = time
        hasBeenShown = true
        if expiresAt != nil { expiresAt = nil }
    }
}

/// A message's rarely set fields (`Message.boxed`).
private struct MessageExtras: Hashable, Sendable {
    var subtitle: String?
    var icon: String?
    var scheduledFor: Instant?
    var expires: Interval?
    var joinedAt: Instant?
    var expiresAt: Instant?
    var click: String?
    var actions: [MessageAction] = []
    var accessibilityLabel: String?
    var taps: [Tap] = []

    var textBytes: Int {
        var bytes = (subtitle?.utf8.count ?? 0) + (icon?.utf8.count ?? 0) + (click?.utf8.count ?? 0)
        bytes += accessibilityLabel?.utf8.count ?? 0
        for action in actions { bytes += action.textBytes }
        for tap in taps { bytes += tap.textBytes }
        return bytes
    }
}
