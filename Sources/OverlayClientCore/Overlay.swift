/// The overlay as `GET /overlay` returns it: everything a reader needs to draw it at `now`.
///
/// Decoding ignores members this client does not know, and `statusBar` and `held` are optional,
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

    /// The label: the shown message's text, at its frame in the bar's own space.
    public struct Label: Codable, Hashable, Sendable {
        public var text: String
        public var frame: Rect

        public init(text: String, frame: Rect) {
            self.text = text
            self.frame = frame
        }
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
    /// The window's frame in the fixed portrait screen space.
    public var frame: Rect
    /// 0 when fully shown, −h when slid out above the top edge.
    public var contentOffset: Double
    public var alpha: Double
    public var message: Message?
    public var label: Label?
    public var style: Style?
    /// The activity spinner (kind `sending`).
    public var activity: Bool
    public var progressBar: ProgressBar?
    /// Messages waiting behind the shown one.
    public var queued: Int
    /// The animation that runs, if one does.
    public var animation: Animation?
    /// The app's own status bar under the overlay, from servers that model it.
    public var statusBar: StatusBar?
    /// Whether a hidden status bar holds the overlay back, from servers that model it.
    public var held: Bool?

    public init(
        version: UInt64, now: Double, phase: Phase, orientation: Orientation, rotation: Int, device: String,
        frame: Rect, contentOffset: Double, alpha: Double, message: Message? = nil, label: Label? = nil,
        style: Style? = nil, activity: Bool = false, progressBar: ProgressBar? = nil, queued: Int = 0,
        animation: Animation? = nil, statusBar: StatusBar? = nil, held: Bool? = nil
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
        self.animation = animation
        self.statusBar = statusBar
        self.held = held
    }
}
