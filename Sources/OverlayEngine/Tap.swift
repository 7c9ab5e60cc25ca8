/// A reader's tap on the shown message (`POST /overlay/tap`): when, and on which of its actions
/// (nil: on the overlay itself). A message keeps its last `Tap.kept` (docs/MODEL.md §14).
public struct Tap: Hashable, Sendable {
    public var at: Instant
    /// The id of the action tapped; nil for a tap on the overlay.
    public var action: String?

    /// How many taps a message keeps, the newest: a reader tapping a thousand times a second
    /// costs the message no more than ten.
    public static let kept = 10

    public init(at: Instant, action: String? = nil) {
        self.at = at
        self.action = action
    }

    /// What a tap adds to `Message.textBytes`: its action's id and the 8 bytes of its time.
    var textBytes: Int { 8 + (action?.utf8.count ?? 0) }
}

/// A tap as readers of the channel's event stream hear of it (`event: tap`): the message tapped
/// and the tap. Never stored apart from the message, never replayed.
public struct MessageTap: Hashable, Sendable {
    public var message: Int64
    public var tap: Tap

    public init(message: Int64, tap: Tap) {
        self.message = message
        self.tap = tap
    }
}
