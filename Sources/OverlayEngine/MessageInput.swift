/// What a sender sends: a new message (POST) or a change to one (PATCH, or POST with a known `key`).
/// Only the fields that are set take part; the engine checks every rule of `MessageRules`.
public struct MessageInput: Hashable, Sendable {
    public var kind: MessageKind?
    public var text: String?
    /// `.some(nil)` is an explicit `null`: the subtitle is removed.
    public var subtitle: String?? {
        get { extras?.subtitle }
        set { extras = InputExtras.make(subtitle: newValue, icon: icon) }
    }
    /// `.some(nil)` is an explicit `null`: the icon is removed.
    public var icon: String?? {
        get { extras?.icon }
        set { extras = InputExtras.make(subtitle: subtitle, icon: newValue) }
    }
    /// Boxed, as a message's: most inputs set neither, and an input is copied on its way in.
    private var extras: InputExtras?
    /// `.some(nil)` is an explicit `null`: no progress bar.
    public var progress: Double??
    public var duration: Interval?
    public var immediate: Bool?
    public var key: String?

    public init(
        kind: MessageKind? = nil,
        text: String? = nil,
        subtitle: String?? = nil,
        icon: String?? = nil,
        progress: Double?? = nil,
        duration: Interval? = nil,
        immediate: Bool? = nil,
        key: String? = nil
    ) {
        self.kind = kind
        self.text = text
        self.extras = InputExtras.make(subtitle: subtitle, icon: icon)
        self.progress = progress
        self.duration = duration
        self.immediate = immediate
        self.key = key
    }

    /// Whether the input sets nothing at all.
    public var isEmpty: Bool { self == MessageInput() }
}

/// An input's subtitle and icon, when it sets one of them (`MessageInput.extras`).
private final class InputExtras: Hashable, Sendable {
    let subtitle: String??
    let icon: String??

    /// Nil when there is neither, without allocating (a failable class init allocates first).
    static func make(subtitle: String??, icon: String??) -> InputExtras? {
        subtitle == nil && icon == nil ? nil : InputExtras(subtitle: subtitle, icon: icon)
    }

    private init(subtitle: String??, icon: String??) {
        self.subtitle = subtitle
        self.icon = icon
    }

    static func == (lhs: InputExtras, rhs: InputExtras) -> Bool {
        lhs.subtitle == rhs.subtitle && lhs.icon == rhs.icon
    }
    func hash(into hasher: inout Hasher) {
        hasher.combine(subtitle)
        hasher.combine(icon)
    }
}
