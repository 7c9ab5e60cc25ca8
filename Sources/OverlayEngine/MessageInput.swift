/// What a sender sends: a new message (POST) or a change to one (PATCH, or POST with a known `key`).
/// Only the fields that are set take part; the engine checks every rule of `MessageRules`.
public struct MessageInput: Hashable, Sendable {
    public var kind: MessageKind?
    public var text: String?
    /// `.some(nil)` is an explicit `null`: the subtitle is removed.
    public var subtitle: String??
    /// `.some(nil)` is an explicit `null`: the icon is removed.
    public var icon: String??
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
        self.subtitle = subtitle
        self.icon = icon
        self.progress = progress
        self.duration = duration
        self.immediate = immediate
        self.key = key
    }

    /// Whether the input sets nothing at all.
    public var isEmpty: Bool { self == MessageInput() }
}
