/// A line of text inside the overlay: the label (the title) or the subtitle.
public struct Label: Hashable, Sendable {
    public var text: String
    public var frame: Rect
    /// The text's measured width, unrounded.
    public var textWidth: Double
    /// Whether the text is wider than its frame (a drawing truncates it).
    public var truncated: Bool { textWidth > frame.width }

    public init(text: String, frame: Rect, textWidth: Double = 0) {
        self.text = text
        self.frame = frame
        self.textWidth = textWidth
    }
}

/// What sits beside the text: the activity spinner of a `sending` message, else its icon.
public struct Accessory: Hashable, Sendable {
    public enum Kind: String, Hashable, Sendable {
        case activity
        case icon
    }

    public var kind: Kind
    /// The icon's text; nil for the spinner.
    public var icon: String?
    public var frame: Rect
}

/// The capsule of the `pill` presentation.
public struct Pill: Hashable, Sendable {
    public var frame: Rect
    public var cornerRadius: Double { frame.height / 2 }
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
    /// The presentation in effect: never `auto`.
    public var presentation: Presentation
    /// The window's frame in screen space: the status bar's with h replaced by Hw.
    public var frame: Rect
    public var contentOffset: Double
    public var alpha: Double
    public var message: Message?
    public var label: Label?
    /// The label rising out during a rise (its text and frame); nil when no rise runs.
    public var outgoing: Label?
    /// The incoming label's offset from its resting y: Hc to 0 during a rise, else 0. The label
    /// moves by it, and the outgoing label by it less Hc.
    public var labelOffset: Double = 0
    /// The outgoing label's y less contentOffset and labelOffset: its resting y less Hc, which a
    /// version's template adds the moving offsets to.
    public var outgoingBaseY: Double = 0
    /// Drawn in `fullWidth` and `pill` only.
    public var subtitle: Label?
    public var accessory: Accessory?
    public var pill: Pill?
    public var style: Style?
    public var activity: Bool
    public var progressBar: ProgressBar?
    public var queued: Int
    /// Messages waiting for their time (`delay`, `at`), not counted in `queued`.
    public var scheduled: Int = 0
    /// The running animation, so that a reader can draw it smoothly without polling.
    public var animation: Transition?
    public var curve: Curve
    /// The app's own status bar under the overlay.
    public var statusBar: StatusBarSnapshot
    /// Whether the hidden status bar holds the overlay: no message starts to show.
    public var held: Bool
    /// When the finger holding the overlay went down; nil when nothing holds it.
    public var heldSince: Instant?
    /// The drawn message's layout at rest (contentOffset 0): each frame above is it moved by
    /// contentOffset, which is how a version's template fills them in.
    public var restingLayout: PresentationLayout?
    /// The version at which `announcement` last changed (MODEL §14).
    public var announcementVersion: UInt64 = 0

    public var rotation: Int { orientation.rotation }
}

/// What moves within one version: time, and during an animation contentOffset or alpha (every
/// frame of the content moves with contentOffset: its resting y plus the offset), and the status
/// bar's alpha or offset while it hides or shows. Everything else in an `OverlaySnapshot` changes
/// only with the version.
public struct MovingValues: Hashable, Sendable {
    public var now: Instant
    public var contentOffset: Double
    public var alpha: Double
    public var statusBarAlpha: Double
    public var statusBarOffset: Double
    /// During a rise, the incoming label's offset from its resting y.
    public var labelOffset: Double

    public init(_ overlay: OverlaySnapshot) {
        now = overlay.now
        labelOffset = overlay.labelOffset
        contentOffset = overlay.contentOffset
        alpha = overlay.alpha
        statusBarAlpha = overlay.statusBar.alpha
        statusBarOffset = overlay.statusBar.offset
    }

    init(
        now: Instant, contentOffset: Double, alpha: Double, statusBarAlpha: Double, statusBarOffset: Double,
        labelOffset: Double
    ) {
        self.now = now
        self.labelOffset = labelOffset
        self.contentOffset = contentOffset
        self.alpha = alpha
        self.statusBarAlpha = statusBarAlpha
        self.statusBarOffset = statusBarOffset
    }
}

extension OverlayEngine {
    /// The moving values of `overlay(at: time)`, for a `time` before `nextDeadline` (when the
    /// version cannot change): what a reader of an already encoded version needs, and nothing else.
    public func movingValues(at time: Instant) -> MovingValues {
        let at = max(time, now)
        let (contentOffset, alpha) = motion(at: at)
        return MovingValues(
            now: at, contentOffset: contentOffset, alpha: alpha, statusBarAlpha: statusBar.alpha(at: at),
            statusBarOffset: statusBar.offset(at: at, height: device.statusBarHeight), labelOffset: labelOffset(at: at))
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
        let (contentOffset, alpha) = motion(at: time)
        let shown = drawn
        let measured = shown.map { measure($0) }
        let resting = shown.map { layout(of: $0, measured: measured!) }
        let placed = resting?.shifted(by: contentOffset)
        let labelOffset = self.labelOffset(at: time)
        let label = shown.map { message in
            var frame = placed!.label
            frame.y += labelOffset
            return Label(text: message.text, frame: frame, textWidth: measured!.title)
        }
        var snapshot = OverlaySnapshot(
            version: version,
            now: time,
            phase: phase,
            orientation: orientation,
            device: device,
            presentation: presentationInEffect,
            frame: orientation.frame(on: device, height: windowHeight),
            contentOffset: contentOffset,
            alpha: alpha,
            message: shown,
            label: label,
            subtitle: placed?.subtitle.flatMap { frame in
                shown?.subtitle.map { Label(text: $0, frame: frame, textWidth: measured?.subtitle ?? 0) }
            },
            accessory: placed?.accessory.flatMap { frame in shown.flatMap { accessory(of: $0, frame: frame) } },
            pill: placed?.pill.map { Pill(frame: $0) },
            style: shown.flatMap {
                configuration.style(for: $0.kind, statusBarStyle: statusBar.style, statusBar: configuration.statusBar)
            },
            activity: shown?.kind.showsActivity ?? false,
            progressBar: shown?.progress.flatMap { progress in
                placed?.progressBar.map {
                    ProgressBar(progress: progress, position: configuration.progressBarPosition, frame: $0)
                }
            },
            queued: queue.count,
            scheduled: scheduled.count,
            animation: transition,
            curve: configuration.curve,
            statusBar: statusBarSnapshot(at: time),
            held: statusBar.holdsOverlay,
            heldSince: heldSince,
            restingLayout: resting,
            announcementVersion: announcementVersion
        )
        if isRising, let rise, let label {
            let distance = transition?.from ?? 0
            snapshot.labelOffset = labelOffset
            snapshot.outgoingBaseY = rise.restingY - distance
            snapshot.outgoing = Label(
                text: rise.text,
                frame: Rect(
                    // Added in the order a version's template adds them, to the same last bit.
                    x: label.frame.x, y: snapshot.outgoingBaseY + contentOffset + labelOffset,
                    width: label.frame.width, height: rise.height))
        }
        return snapshot
    }

    /// The spinner of a kind that shows activity, else the message's icon, else nothing.
    private func accessory(of message: Message, frame: Rect) -> Accessory? {
        if message.kind.showsActivity { return Accessory(kind: .activity, icon: nil, frame: frame) }
        return message.icon.map { Accessory(kind: .icon, icon: $0, frame: frame) }
    }

    /// Where the presentation in effect puts `message`'s parts, at rest (contentOffset 0).
    func layout(of message: Message, measured: MeasuredText) -> PresentationLayout {
        var input = PresentationLayout.Input(
            presentation: presentationInEffect, device: device, orientation: orientation,
            inset: configuration.inset, contentOffset: 0, titleWidth: measured.title,
            subtitleWidth: message.subtitle == nil ? nil : measured.subtitle ?? 0,
            hasAccessory: message.kind.showsActivity || message.icon != nil, progress: message.progress)
        input.progressBarHeight = configuration.progressBarHeight
        input.progressBarPosition = configuration.progressBarPosition
        input.progressBarCapWidth = configuration.progressBarCapWidth
        input.pillHeight = configuration.pillHeight
        return PresentationLayout(input)
    }
}
