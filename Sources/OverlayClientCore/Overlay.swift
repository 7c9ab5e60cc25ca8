/// The overlay as `GET /overlay` returns it: everything a reader needs to draw it at `now`.
///
/// Decoding ignores members this client does not know, and `statusBar`, `held` and `scheduled` are optional,
/// so a newer server's overlay still decodes.
public struct Overlay: Codable, Hashable, Sendable {
    /// Where the overlay is in its cycle.
    public struct Phase: OpenEnum {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let hidden: Phase = "hidden"
        public static let showing: Phase = "showing"
        public static let visible: Phase = "visible"
        public static let hiding: Phase = "hiding"
        public static let rotatingOut: Phase = "rotatingOut"
        public static let rotatingIn: Phase = "rotatingIn"
    }

    /// `UIInterfaceOrientation`'s four orientations.
    public struct Orientation: OpenEnum {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let portrait: Orientation = "portrait"
        public static let portraitUpsideDown: Orientation = "portraitUpsideDown"
        public static let landscapeLeft: Orientation = "landscapeLeft"
        public static let landscapeRight: Orientation = "landscapeRight"
    }

    /// How the window sits on the screen: the status bar's frame, a full-width bar below the safe
    /// area, or a capsule under the cutout.
    public struct Presentation: OpenEnum {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let statusBar: Presentation = "statusBar"
        public static let fullWidth: Presentation = "fullWidth"
        public static let pill: Presentation = "pill"
    }

    /// The label (the title) or the subtitle: its text at its frame in the bar's own space, the
    /// width the server measured it at and whether that is wider than the frame.
    public struct Label: Codable, Hashable, Sendable {
        public var text: String
        public var frame: Rect
        /// From servers that measure text.
        public var textWidth: Double?
        public var truncated: Bool?

        public init(text: String, frame: Rect, textWidth: Double? = nil, truncated: Bool? = nil) {
            self.text = text
            self.frame = frame
            self.textWidth = textWidth
            self.truncated = truncated
        }
    }

    /// What sits beside the text: the activity spinner, or the message's icon.
    public struct Accessory: Codable, Hashable, Sendable {
        public struct Kind: OpenEnum {
            public var rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }

            public static let activity: Kind = "activity"
            public static let icon: Kind = "icon"
        }

        public var kind: Kind
        public var icon: String?
        public var frame: Rect

        public init(kind: Kind, icon: String? = nil, frame: Rect) {
            self.kind = kind
            self.icon = icon
            self.frame = frame
        }
    }

    /// The capsule of the `pill` presentation.
    public struct Pill: Codable, Hashable, Sendable {
        public var frame: Rect
        public var cornerRadius: Double

        public init(frame: Rect, cornerRadius: Double) {
            self.frame = frame
            self.cornerRadius = cornerRadius
        }
    }

    /// A finger holding the overlay (`POST /overlay/hold`): the shown message does not end by its
    /// time until it lets go.
    public struct Touch: Codable, Hashable, Sendable {
        public var heldSince: Double

        public init(heldSince: Double) { self.heldSince = heldSince }
    }

    /// Background and foreground colours as `#RRGGBB`.
    public struct Style: Codable, Hashable, Sendable {
        public var background: String
        public var foreground: String

        public init(background: String, foreground: String) {
            self.background = background
            self.foreground = foreground
        }
    }

    /// The progress bar, while the shown message has a progress.
    public struct ProgressBar: Codable, Hashable, Sendable {
        /// Where the bar sits in the overlay.
        public struct Position: OpenEnum {
            public var rawValue: String
            public init(rawValue: String) { self.rawValue = rawValue }

            public static let bottom: Position = "bottom"
            public static let top: Position = "top"
            public static let center: Position = "center"
        }

        public var progress: Double
        public var position: Position
        public var frame: Rect

        public init(progress: Double, position: Position, frame: Rect) {
            self.progress = progress
            self.position = position
            self.frame = frame
        }
    }

    /// Grows on every discrete change; never repeats while the server keeps its state.
    public var version: UInt64
    /// The server's clock, in seconds, when this overlay was taken.
    public var now: Double
    public var phase: Phase
    public var orientation: Orientation
    /// The window's rotation in degrees: 0, 180, −90 or 90.
    public var rotation: Int
    /// The device profile's name.
    public var device: String
    /// The presentation in effect, from servers that have them (older ones draw `statusBar`).
    public var presentation: Presentation?
    /// The window's frame in the fixed portrait screen space.
    public var frame: Rect
    /// 0 when fully shown, −Hw (the window's height) when slid out above the top edge.
    public var contentOffset: Double
    public var alpha: Double
    public var message: Message?
    /// What VoiceOver reads for `message` (`nil` when none is drawn, or from an older server).
    public var announcement: String?
    /// The version at which `announcement` last changed: a reader speaks when this changes, not
    /// on every progress step (`nil` from an older server).
    public var announcementVersion: UInt64?
    public var label: Label?
    /// Drawn in `fullWidth` and `pill` only.
    public var subtitle: Label?
    /// The label rising out while the next one rises in (a server with `messageChange: rise`);
    /// nil when no rise runs.
    public var outgoing: Label?
    public var accessory: Accessory?
    public var pill: Pill?
    public var style: Style?
    /// The activity spinner (kind `sending`).
    public var activity: Bool
    public var progressBar: ProgressBar?
    /// Messages waiting behind the shown one.
    public var queued: Int
    /// Messages waiting for their `delay` or `at` (not in `queued`), from servers that schedule.
    public var scheduled: Int?
    /// The animation that runs, if one does.
    public var animation: Animation?
    /// The app's own status bar under the overlay, from servers that model it.
    public var statusBar: StatusBar?
    /// Whether a hidden status bar holds the overlay back, from servers that model it.
    public var held: Bool?
    /// The finger holding the overlay, if one does.
    public var touch: Touch?

    public init(
        version: UInt64, now: Double, phase: Phase, orientation: Orientation, rotation: Int, device: String,
        frame: Rect, contentOffset: Double, alpha: Double, message: Message? = nil, label: Label? = nil,
        style: Style? = nil, activity: Bool = false, progressBar: ProgressBar? = nil, queued: Int = 0,
        animation: Animation? = nil, statusBar: StatusBar? = nil, held: Bool? = nil, presentation: Presentation? = nil,
        subtitle: Label? = nil, accessory: Accessory? = nil, pill: Pill? = nil, touch: Touch? = nil,
        scheduled: Int? = nil, outgoing: Label? = nil, announcement: String? = nil,
        announcementVersion: UInt64? = nil
    ) {
        self.version = version
        self.now = now
        self.phase = phase
        self.orientation = orientation
        self.rotation = rotation
        self.device = device
        self.frame = frame
        self.contentOffset = contentOffset
        self.alpha = alpha
        self.message = message
        self.label = label
        self.style = style
        self.activity = activity
        self.progressBar = progressBar
        self.queued = queued
        self.scheduled = scheduled
        self.animation = animation
        self.statusBar = statusBar
        self.held = held
        self.presentation = presentation
        self.subtitle = subtitle
        self.accessory = accessory
        self.pill = pill
        self.touch = touch
        self.outgoing = outgoing
        self.announcement = announcement
        self.announcementVersion = announcementVersion
    }
}
