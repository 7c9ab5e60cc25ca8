/// How the overlay appears and disappears.
public enum ShowStyle: String, CaseIterable, Hashable, Sendable {
    /// contentOffset moves −h → 0 to show and 0 → −h to hide; alpha stays 1 while shown.
    case slide
    /// contentOffset stays 0; alpha moves 0 → 1 and 1 → 0.
    case fade
    /// Every change is instant.
    case none
    /// JDStatusBarNotification's: shows as a slide along the ease-out bounce curve over
    /// `bounceDuration`, hides as `slide`.
    case bounce

    /// Whether the content moves (contentOffset) rather than fades (alpha).
    var slides: Bool { self == .slide || self == .bounce }
}

/// The timing curve of every animation.
public enum Curve: String, CaseIterable, Hashable, Sendable {
    case linear
    /// Core Animation's `easeInEaseOut`: the cubic Bézier (0.42, 0) (0.58, 1).
    case easeInOut

    /// The animated fraction at `fraction` (0...1) of the animation's time.
    public func value(at fraction: Double) -> Double {
        let f = min(max(fraction, 0), 1)
        switch self {
        case .linear:
            return f
        case .easeInOut:
            return Curve.cubicBezier(x: f, x1: 0.42, y1: 0, x2: 0.58, y2: 1)
        }
    }

    /// The ease-out bounce (Robert Penner's, as JDStatusBarNotification's bounce): three
    /// ever smaller bounces before it settles at 1.
    public static func easeOutBounce(_ fraction: Double) -> Double {
        let p = min(max(fraction, 0), 1)
        let n = 7.5625
        let d = 2.75
        if p < 1 / d { return n * p * p }
        if p < 2 / d {
            let q = p - 1.5 / d
            return n * q * q + 0.75
        }
        if p < 2.5 / d {
            let q = p - 2.25 / d
            return n * q * q + 0.9375
        }
        let q = p - 2.625 / d
        return n * q * q + 0.984375
    }

    /// y of the unit cubic Bézier (0,0) (x1,y1) (x2,y2) (1,1) at the point whose x is `x`.
    /// Bisection on x(t) rather than Newton steps: it always converges, and 60 halvings reach the
    /// precision of a Double, so the value is the same on every machine.
    static func cubicBezier(x: Double, x1: Double, y1: Double, x2: Double, y2: Double) -> Double {
        func coordinate(_ t: Double, _ p1: Double, _ p2: Double) -> Double {
            let u = 1 - t
            return 3 * u * u * t * p1 + 3 * u * t * t * p2 + t * t * t
        }
        if x <= 0 { return 0 }
        if x >= 1 { return 1 }
        var low = 0.0
        var high = 1.0
        for _ in 0..<60 {
            let middle = (low + high) / 2
            if coordinate(middle, x1, x2) < x { low = middle } else { high = middle }
        }
        return coordinate((low + high) / 2, y1, y2)
    }
}

/// How the overlay changes its label while it stays visible (docs/MODEL.md §14).
public enum MessageChange: String, CaseIterable, Hashable, Sendable {
    /// The new text replaces the old at once.
    case instant
    /// MTStatusBarOverlay's: the old text rises out of the bar while the new one rises in.
    case rise
}

/// Where the progress bar sits inside the bar.
public enum ProgressBarPosition: String, CaseIterable, Hashable, Sendable {
    case bottom
    case top
    case center
}

/// Background and foreground colours as `#RRGGBB`.
public struct Style: Hashable, Sendable {
    public var background: String
    public var foreground: String

    public init(background: String, foreground: String) {
        self.background = background
        self.foreground = foreground
    }
}

/// Every number and choice the engine needs; the defaults are those of docs/MODEL.md.
public struct EngineConfiguration: Hashable, Sendable {
    public var device: DeviceProfile = .ipad
    /// `auto` is `pill` on a device with a cutout, `statusBar` on one without.
    public var presentation: Presentation = .auto
    /// The pill's height P.
    public var pillHeight: Double = PresentationMetrics.pillHeight
    /// How the texts are measured (the server's HarfBuzz font; nothing measured by default).
    public var text: TextMetrics = .unmeasured
    public var orientation: Orientation = .portrait
    public var showStyle: ShowStyle = .slide
    public var curve: Curve = .linear
    public var showDuration: Interval = .seconds(0.25)
    public var hideDuration: Interval = .seconds(0.25)
    public var rotationDuration: Interval = .seconds(0.4)
    /// The `bounce` show style's show.
    public var bounceDuration: Interval = .seconds(0.75)
    /// How the label changes while the overlay stays visible: at once, or by a rise.
    public var messageChange: MessageChange = .instant
    /// The rise's length; its curve is always `easeInOut`.
    public var riseDuration: Interval = .seconds(0.6)
    /// How long a shown message stays, once fully shown, before an immediate one may replace it.
    public var minimumVisible: Interval = .zero
    /// A hold of the overlay ends by itself this long after it began.
    public var maxHoldDuration: Interval = .seconds(30)
    /// How long a message of each kind stays once shown; `nil` is sticky.
    public var durations: KindTable<Interval> = [
        .sent: .seconds(2.0),
        .failed: .seconds(3.0),
        .info: .seconds(2.5),
    ]
    /// How long a message stays after its progress reaches 1.
    public var completeDuration: Interval = .seconds(1.0)
    /// How long a sticky message may stay before it ends as `expired`.
    public var maxStickyDuration: Interval = .seconds(300)
    /// Waiting messages, not counting the shown one.
    public var maxQueue: Int = 1000
    /// Messages waiting for their time (`delay`, `at`), not yet in the queue.
    public var maxScheduled: Int = 1000
    /// The priority of a message whose sender gives none, by kind; a kind not listed is `default`.
    public var priorities: KindTable<Priority> = [
        .sending: .default, .sent: .default, .failed: .high, .progress: .default, .info: .default,
    ]
    /// The Unix time, in nanoseconds, at the clock's instant zero: with the real clock, what an
    /// `at` given as a calendar time or Unix seconds is measured against, and what moves stored
    /// times onto a restarted clock. Nil with the manual clock, whose times are its own numbers.
    public var wallClockEpoch: Int64?
    /// Ended messages that stay readable.
    public var historySize: Int = 100
    /// The label's inset from both ends of the bar.
    public var inset: Double = 30
    public var progressBarHeight: Double = 2
    public var progressBarPosition: ProgressBarPosition = .bottom
    /// The cap width of the bar's stretchable image: a filled bar is never narrower than two caps.
    public var progressBarCapWidth: Double = 0
    public var styles: [MessageKind: Style] = [
        .sending: Style(background: "#1C1C1E", foreground: "#FFFFFF"),
        .sent: Style(background: "#34C759", foreground: "#FFFFFF"),
        .failed: Style(background: "#FF3B30", foreground: "#FFFFFF"),
        .progress: Style(background: "#007AFF", foreground: "#FFFFFF"),
        .info: Style(background: "#1C1C1E", foreground: "#FFFFFF"),
    ]
    /// The app's own status bar under the overlay: its launch state, who decides it, and the
    /// colours `info` and `sending` take under it (docs/STATUSBAR.md).
    public var statusBar = StatusBarConfiguration()

    public init() {}

    /// The length of the show animation, zero when the style makes changes instant.
    var showLength: Interval {
        switch showStyle {
        case .none: .zero
        case .bounce: bounceDuration
        case .slide, .fade: showDuration
        }
    }
    var hideLength: Interval { showStyle == .none ? .zero : hideDuration }
    /// With `none` a rotation applies at its event too: alpha is only ever 0 or 1 (docs/BEHAVIOUR.md).
    var rotationLength: Interval { showStyle == .none ? .zero : rotationDuration }
}
