/// The label inside the bar.
public struct Label: Hashable, Sendable {
    public var text: String
    public var frame: Rect
}

/// The progress bar inside the bar, while the message has a progress.
public struct ProgressBar: Hashable, Sendable {
    public var progress: Double
    public var position: ProgressBarPosition
    public var frame: Rect
}

/// The overlay at one instant: everything a reader needs to draw it (MODEL §5, `GET /overlay`).
public struct OverlaySnapshot: Hashable, Sendable {
    public var version: UInt64
    public var now: Instant
    public var phase: Phase
    public var orientation: Orientation
    public var device: DeviceProfile
    public var frame: Rect
    public var contentOffset: Double
    public var alpha: Double
    public var message: Message?
    public var label: Label?
    public var style: Style?
    public var activity: Bool
    public var progressBar: ProgressBar?
    public var queued: Int
    /// The running animation, so that a reader can draw it smoothly without polling.
    public var animation: Transition?
    public var curve: Curve
    /// The app's own status bar under the overlay.
    public var statusBar: StatusBarSnapshot
    /// Whether the hidden status bar holds the overlay: no message starts to show.
    public var held: Bool

    public var rotation: Int { orientation.rotation }
}

/// What moves within one version: time, and during an animation contentOffset or alpha (with the
/// label's and the progress bar's y), and the status bar's alpha or offset while it hides or
/// shows. Everything else in an `OverlaySnapshot` changes only with the version.
public struct MovingValues: Hashable, Sendable {
    public var now: Instant
    public var contentOffset: Double
    public var alpha: Double
    public var labelY: Double?
    public var progressBarY: Double?
    public var statusBarAlpha: Double
    public var statusBarOffset: Double

    public init(_ overlay: OverlaySnapshot) {
        now = overlay.now
        contentOffset = overlay.contentOffset
        alpha = overlay.alpha
        labelY = overlay.label?.frame.y
        progressBarY = overlay.progressBar?.frame.y
        statusBarAlpha = overlay.statusBar.alpha
        statusBarOffset = overlay.statusBar.offset
    }

    init(
        now: Instant, contentOffset: Double, alpha: Double, labelY: Double?, progressBarY: Double?,
        statusBarAlpha: Double, statusBarOffset: Double
    ) {
        self.now = now
        self.contentOffset = contentOffset
        self.alpha = alpha
        self.labelY = labelY
        self.progressBarY = progressBarY
        self.statusBarAlpha = statusBarAlpha
        self.statusBarOffset = statusBarOffset
    }
}

extension OverlayEngine {
    /// The moving values of `overlay(at: time)`, for a `time` before `nextDeadline` (when the
    /// version cannot change): what a reader of an already encoded version needs, and nothing else.
    public func movingValues(at time: Instant) -> MovingValues {
        let at = max(time, now)
        let (contentOffset, alpha) = presentation(at: at)
        let shown = drawn
        return MovingValues(
            now: at, contentOffset: contentOffset, alpha: alpha,
            labelY: shown.map { _ in labelFrame(contentOffset: contentOffset).y },
            progressBarY: shown?.progress.map { progressBar(progress: $0, contentOffset: contentOffset).frame.y },
            statusBarAlpha: statusBar.alpha(at: at),
            statusBarOffset: statusBar.offset(at: at, height: device.statusBarHeight))
    }

    /// The message the overlay draws: none while hidden; while it hides beside the status bar,
    /// the one it showed (back in the queue by then).
    private var drawn: Message? {
        phase == .hidden ? nil : current ?? leaving
    }

    /// The overlay at `time` (never earlier than `now`). Pure: deadlines up to `time` are reached
    /// on a copy, so a reader sees exactly what the engine will hold once it advances there.
    public func overlay(at time: Instant) -> OverlaySnapshot {
        if let deadline = nextDeadline, deadline <= time {
            var advanced = self
            advanced.advance(to: time)
            return advanced.snapshot(at: advanced.now)
        }
        return snapshot(at: max(time, now))
    }

    private func snapshot(at time: Instant) -> OverlaySnapshot {
        let (contentOffset, alpha) = presentation(at: time)
        let shown = drawn
        return OverlaySnapshot(
            version: version,
            now: time,
            phase: phase,
            orientation: orientation,
            device: device,
            frame: orientation.frame(on: device),
            contentOffset: contentOffset,
            alpha: alpha,
            message: shown,
            label: shown.map { Label(text: $0.text, frame: labelFrame(contentOffset: contentOffset)) },
            style: shown.flatMap {
                configuration.style(for: $0.kind, statusBarStyle: statusBar.style, statusBar: configuration.statusBar)
            },
            activity: shown?.kind.showsActivity ?? false,
            progressBar: shown?.progress.map { progressBar(progress: $0, contentOffset: contentOffset) },
            queued: queue.count,
            animation: transition,
            curve: configuration.curve,
            statusBar: statusBarSnapshot(at: time),
            held: statusBar.holdsOverlay
        )
    }

    /// (inset, contentOffset, L − 2·inset, h) in the bar's own space (MODEL §1).
    func labelFrame(contentOffset: Double) -> Rect {
        let length = orientation.barLength(on: device)
        let inset = configuration.inset
        return Rect(x: inset, y: contentOffset, width: length - 2 * inset, height: device.statusBarHeight)
    }

    /// Height p at the bottom, top or centre; fill L × progress, never less than two caps while
    /// progress > 0 (a stretchable image cannot be narrower than its caps), never more than L.
    func progressBar(progress: Double, contentOffset: Double) -> ProgressBar {
        let frame = PresentationLayout.progressFrame(
            x: 0, track: orientation.barLength(on: device), top: contentOffset, height: device.statusBarHeight,
            progress: progress, barHeight: configuration.progressBarHeight,
            position: configuration.progressBarPosition, capWidth: configuration.progressBarCapWidth)
        return ProgressBar(progress: progress, position: configuration.progressBarPosition, frame: frame)
    }
}
