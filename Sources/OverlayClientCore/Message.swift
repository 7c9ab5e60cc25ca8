/// A message: the summary the overlay shows, and, from the `/messages` calls, its timing and
/// sender fields too (`nil` where the answer does not carry them).
public struct Message: Codable, Hashable, Sendable, Identifiable {
    /// What a message reports (sending, sent, failed, progress, info); it picks the colours.
    public struct Kind: OpenEnum {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let sending: Kind = "sending"
        public static let sent: Kind = "sent"
        public static let failed: Kind = "failed"
        public static let progress: Kind = "progress"
        public static let info: Kind = "info"
    }

    /// Where a message is in its life.
    public struct State: OpenEnum {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Waiting for its `delay` or `at`: not yet in the queue.
        public static let scheduled: State = "scheduled"
        public static let queued: State = "queued"
        public static let showing: State = "showing"
        public static let done: State = "done"
        public static let cancelled: State = "cancelled"
        public static let preempted: State = "preempted"
        public static let expired: State = "expired"
        /// Swiped away (`POST /overlay/dismiss`).
        public static let dismissed: State = "dismissed"

        /// Whether the message has ended (it can no longer be changed).
        public var hasEnded: Bool { self != .scheduled && self != .queued && self != .showing }
    }

    /// A button a reader may draw beside the message: a tap on it is reported with its `id`
    /// (`OverlayClient.tap(action:)`) and opens its `url`, if it has one.
    public struct Action: Codable, Hashable, Sendable {
        public var id: String
        public var label: String
        public var url: String?

        public init(id: String, label: String, url: String? = nil) {
            self.id = id
            self.label = label
            self.url = url
        }
    }

    /// A reader's tap on the message: when (the server's clock), and on which action (`nil`: on
    /// the overlay itself).
    public struct Tap: Codable, Hashable, Sendable {
        public var at: Double
        public var action: String?

        public init(at: Double, action: String? = nil) {
            self.at = at
            self.action = action
        }
    }

    public var id: Int
    public var kind: Kind
    public var text: String
    /// A second, smaller line under the text (`nil` without one, or from an older server).
    public var subtitle: String?
    /// An emoji or a few characters beside the text.
    public var icon: String?
    /// 0…1 while the message has a progress bar.
    public var progress: Double?
    public var state: State

    /// The duration the sender gave, in seconds (`nil`: the kind's).
    public var duration: Double?
    public var immediate: Bool?
    /// The sender's name for the message: a POST with the same key updates it.
    public var key: String?
    public var postedAt: Double?
    public var shownAt: Double?
    public var displayStartedAt: Double?
    public var endsAt: Double?
    public var endedAt: Double?
    /// The priority in effect: the sender's, or its kind's (`nil` from an older server).
    public var priority: Priority?
    /// When it joins (or joined) the queue, on the server's clock; `nil` if it was never scheduled.
    public var scheduledFor: Double?
    /// The seconds the sender let it wait in the queue before it ends `expired`.
    public var expires: Double?
    /// When a waiting message expires; `nil` once shown, or while scheduled or without `expires`.
    public var expiresAt: Double?
    /// What a tap on the overlay opens (`nil` without one, or from an older server).
    public var click: String?
    /// The buttons beside the message, at most 3 (`nil` from an older server).
    public var actions: [Action]?
    /// What VoiceOver reads instead of the words the server makes of kind, text and progress.
    public var accessibilityLabel: String?
    /// The readers' last taps, oldest first, at most 10 (`nil` from an older server).
    public var taps: [Tap]?

    public init(
        id: Int, kind: Kind, text: String, subtitle: String? = nil, icon: String? = nil, progress: Double? = nil,
        state: State
    ) {
        self.id = id
        self.kind = kind
        self.text = text
        self.subtitle = subtitle
        self.icon = icon
        self.progress = progress
        self.state = state
    }
}
