/// What a sender sends: a new message (POST) or a change to one (PATCH, or POST with a known `key`).
/// Only the fields that are set take part; the engine checks every rule of `MessageRules`.
public struct MessageInput: Hashable, Sendable {
    public var kind: MessageKind?
    public var text: String?
    /// `.some(nil)` is an explicit `null`: the subtitle is removed.
    public var subtitle: String?? {
        get { boxed?.value.subtitle }
        set { extras.subtitle = newValue }
    }
    /// `.some(nil)` is an explicit `null`: the icon is removed.
    public var icon: String?? {
        get { boxed?.value.icon }
        set { extras.icon = newValue }
    }
    /// Wait this long before joining the queue (`scheduled` until then).
    public var delay: Interval? {
        get { boxed?.value.delay }
        set { extras.delay = newValue }
    }
    /// Join the queue at this time instead (`delay` and `at` are never both given).
    public var at: ScheduleTime? {
        get { boxed?.value.at }
        set { extras.at = newValue }
    }
    /// How long the message may wait in the queue before it ends `expired`.
    public var expires: Interval? {
        get { boxed?.value.expires }
        set { extras.expires = newValue }
    }
    /// What a tap on the overlay opens; `.some(nil)` is an explicit `null`: removed.
    public var click: String?? {
        get { boxed?.value.click }
        set { extras.click = newValue }
    }
    /// The message's buttons, all of them; an empty list (or `null`) removes them.
    public var actions: [MessageAction]? {
        get { boxed?.value.actions }
        set { extras.actions = newValue }
    }
    /// What VoiceOver reads instead of the announcement; `.some(nil)` removes it.
    public var accessibilityLabel: String?? {
        get { boxed?.value.accessibilityLabel }
        set { extras.accessibilityLabel = newValue }
    }
    /// Boxed, as a message's rare fields are: most inputs set none, and an input is copied on its way in.
    private var boxed: Boxed<InputExtras>?
    private var extras: InputExtras {
        get { boxed?.value ?? InputExtras() }
        set { boxed = Boxed.make(newValue, empty: InputExtras()) }
    }
    /// `.some(nil)` is an explicit `null`: no progress bar.
    public var progress: Double??
    public var duration: Interval?
    public var immediate: Bool?
    public var key: String?
    public var priority: Priority?

    public init(
        kind: MessageKind? = nil,
        text: String? = nil,
        subtitle: String?? = nil,
        icon: String?? = nil,
        progress: Double?? = nil,
        duration: Interval? = nil,
        immediate: Bool? = nil,
        key: String? = nil,
        delay: Interval? = nil,
        at: ScheduleTime? = nil,
        expires: Interval? = nil,
        priority: Priority? = nil
    ) {
        self.kind = kind
        self.text = text
        self.boxed = Boxed.make(
            InputExtras(subtitle: subtitle, icon: icon, delay: delay, at: at, expires: expires), empty: InputExtras())
        self.progress = progress
        self.duration = duration
        self.immediate = immediate
        self.key = key
        self.priority = priority
    }

    /// Whether the input sets nothing at all.
    public var isEmpty: Bool { self == MessageInput() }

    /// Whether it asks for a time to join the queue.
    public var isScheduling: Bool { delay != nil || at != nil }
}

/// An input's rarely set fields (`MessageInput.boxed`).
private struct InputExtras: Hashable, Sendable {
    var subtitle: String??
    var icon: String??
    var delay: Interval?
    var at: ScheduleTime?
    var expires: Interval?
    var click: String??
    var actions: [MessageAction]?
    var accessibilityLabel: String??
}

/// An `at` as a sender gives it: a number, or a time of day on the calendar (RFC 3339). What a
/// number means depends on the clock (`EngineConfiguration.wallClockEpoch`): Unix seconds with the
/// real clock, seconds on the manual clock with the manual one.
public enum ScheduleTime: Hashable, Sendable {
    case number(Double)
    /// An RFC 3339 time, as nanoseconds since the Unix epoch.
    case calendar(unixNanoseconds: Int64)
}
