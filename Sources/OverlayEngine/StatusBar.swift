/// What a sender asks of the status bar in `application` appearance (`PUT /statusbar`). Only the
/// fields that are set take part.
public struct StatusBarInput: Hashable, Sendable {
    public var style: StatusBarStyle?
    public var hidden: Bool?
    /// The animation this and later changes of `hidden` use.
    public var animation: StatusBarAnimation?

    public init(style: StatusBarStyle? = nil, hidden: Bool? = nil, animation: StatusBarAnimation? = nil) {
        self.style = style
        self.hidden = hidden
        self.animation = animation
    }

    public var isEmpty: Bool { self == StatusBarInput() }
}

/// Why the status bar refused an event. Each maps to one HTTP status.
public enum StatusBarError: Error, Hashable, Sendable {
    /// A field breaks a rule (422), e.g. `controllers[3].childForStatusBarStyle` names no controller.
    case invalidField(field: String, reason: String)
    /// The request belongs to the other appearance mode (409 `controller_based_appearance`): `field`
    /// is the setting refused, `appearance` the mode configured.
    case wrongAppearance(field: String, appearance: StatusBarAppearance)
}

/// What an event did, for the engine that holds the status bar: whether to bump its version,
/// whether to restyle, hold or release the overlay, and when to come back.
public struct StatusBarEffect: Hashable, Sendable {
    /// A change of `hidden`.
    public enum Visibility: Hashable, Sendable {
        /// A hide started (or, with `none`, happened): from now on the overlay is held.
        case hide
        /// A show started (or happened): the overlay is released at this instant.
        case show
    }

    /// Whether anything a reader sees changed: the engine's version grows by one.
    public var changed: Bool
    /// Whether `style` changed: `info` and `sending` messages are drawn in other colours.
    public var styleChanged: Bool
    public var visibility: Visibility?
    /// The end of the running hide or show, if one runs.
    public var nextDeadline: Instant?

    static let unchanged = StatusBarEffect(changed: false, styleChanged: false, visibility: nil, nextDeadline: nil)
}

/// The app's own status bar, under the overlay: its style, its hidden flag, the hide or show that
/// is running, and who decided each.
///
/// A value type with no clock, like the engine that holds it: events take the time they happen
/// at, and alpha and offset are computed from state and time. A hide or show is kept as the bar's
/// visibility (1 shown, 0 hidden) moving from one value to another, so that a hide interrupting a
/// show (or a show a hide) goes on from where the bar is, at the same speed, and a slide keeps its
/// fraction when the bar's height changes with the device.
public struct StatusBar: Hashable, Sendable {
    /// A running hide or show, in visibility.
    public struct Motion: Hashable, Sendable {
        public var animation: StatusBarAnimation
        public var from: Double
        public var to: Double
        public var start: Instant
        public var length: Interval

        public init(animation: StatusBarAnimation, from: Double, to: Double, start: Instant, length: Interval) {
            self.animation = animation
            self.from = from
            self.to = to
            self.start = start
            self.length = length
        }

        var end: Instant { start + length }

        func visibility(at time: Instant, curve: Curve) -> Double {
            Transition(property: .alpha, from: from, to: to, start: start, length: length).value(at: time, curve: curve)
        }
    }

    public let configuration: StatusBarConfiguration
    public let curve: Curve
    public internal(set) var style: StatusBarStyle
    /// The target of the latest change: true from the moment a hide starts.
    public internal(set) var hidden: Bool
    /// The animation the next change of `hidden` uses: the last one `PUT /statusbar` named, or the
    /// `preferredStatusBarUpdateAnimation` of the controller that decides hidden.
    public internal(set) var animation: StatusBarAnimation
    /// "application", or the name of the controller whose preference gave `style`.
    public internal(set) var styleFrom: String
    /// "application", or the name of the controller whose preference gave `hidden`.
    public internal(set) var hiddenFrom: String
    /// The hierarchy last sent; it decides only with `controllers` appearance.
    public internal(set) var hierarchy: ControllerHierarchy?
    /// The animation of the latest hide: a bar that slid out rests at −h, one that faded at 0.
    public internal(set) var hiddenBy: StatusBarAnimation
    public internal(set) var motion: Motion?
    public internal(set) var now: Instant

    /// The bar at launch: the configured style and hidden flag, decided by the application.
    public init(configuration: StatusBarConfiguration, curve: Curve = .linear, now: Instant = .zero) {
        self.configuration = configuration
        self.curve = curve
        self.now = now
        style = configuration.style
        hidden = configuration.hiddenAtLaunch
        animation = .fade
        styleFrom = StatusBar.application
        hiddenFrom = StatusBar.application
        hierarchy = nil
        hiddenBy = .none
    }

    /// The bar at launch with what `record` keeps put back; the rest of the restoring is the
    /// caller's.
    init(configuration: StatusBarConfiguration, curve: Curve, now: Instant, record: Record) {
        self.init(configuration: configuration, curve: curve, now: now)
        style = record.style
        hidden = record.hidden
        animation = record.animation
        hiddenBy = record.hiddenBy
        hierarchy = record.hierarchy
    }

    /// The bar as a store kept it, at rest (a hide or show in flight at a crash has ended). With
    /// `controllers` appearance and a hierarchy, the hierarchy decides again: the appearance mode
    /// may have changed since.
    public init(
        configuration: StatusBarConfiguration, curve: Curve = .linear, restoring record: Record, now: Instant = .zero
    ) {
        self.init(configuration: configuration, curve: curve, now: now, record: record)
        if configuration.appearance == .controllers, let hierarchy = record.hierarchy {
            let style = hierarchy.style
            let hidden = hierarchy.hidden
            self.style = style.value
            styleFrom = style.controller
            if self.hidden != hidden.value {
                self.hidden = hidden.value
                if hidden.value { hiddenBy = .none }
            }
            hiddenFrom = hidden.controller
            animation = hidden.animation
        }
    }

    /// What a store keeps: everything but the running animation and what follows from the rest.
    public struct Record: Hashable, Sendable {
        public var style: StatusBarStyle
        public var hidden: Bool
        public var animation: StatusBarAnimation
        public var hiddenBy: StatusBarAnimation
        public var hierarchy: ControllerHierarchy?

        public init(
            style: StatusBarStyle, hidden: Bool, animation: StatusBarAnimation, hiddenBy: StatusBarAnimation,
            hierarchy: ControllerHierarchy?
        ) {
            self.style = style
            self.hidden = hidden
            self.animation = animation
            self.hiddenBy = hiddenBy
            self.hierarchy = hierarchy
        }
    }

    public var record: Record {
        Record(style: style, hidden: hidden, animation: animation, hiddenBy: hiddenBy, hierarchy: hierarchy)
    }

    static let application = "application"

    /// Whether the overlay is held: no message starts to show while the bar is hidden or hiding.
    public var holdsOverlay: Bool { hidden }

    /// The end of the running hide or show.
    public var nextDeadline: Instant? { motion?.end }

    // MARK: - Events

    /// Reaches the end of the running hide or show if it is at or before `time`. Returns whether it
    /// did: a deadline reached, one version for the engine.
    @discardableResult
    public mutating func advance(to time: Instant) -> Bool {
        let target = max(time, now)
        now = target
        guard let motion, motion.end <= target else { return false }
        self.motion = nil
        return true
    }

    /// `PUT /statusbar` with `application` appearance: sets what `input` sets. The animation is
    /// taken first, so that `{"hidden": false, "animation": "fade"}` fades in. The engine must have
    /// advanced to `time` first (so that deadlines are reached in order with its own).
    public mutating func apply(_ input: StatusBarInput, at time: Instant) -> Result<StatusBarEffect, StatusBarError> {
        advance(to: time)
        if let refusal = configuration.refusal(of: input) { return .failure(refusal) }
        var effect = StatusBarEffect.unchanged
        if let animation = input.animation, animation != self.animation {
            self.animation = animation
            effect.changed = true
        }
        if let style = input.style { setStyle(style, from: StatusBar.application, into: &effect) }
        if let hidden = input.hidden { setHidden(hidden, from: StatusBar.application, into: &effect) }
        effect.nextDeadline = nextDeadline
        return .success(effect)
    }

    /// `PUT /statusbar/controllers` with `controllers` appearance: keeps the hierarchy and resolves
    /// style and hidden again (`setNeedsStatusBarAppearanceUpdate`). A change of hidden uses the
    /// animation of the controller that now decides hidden.
    public mutating func apply(
        _ hierarchy: ControllerHierarchy, at time: Instant
    ) -> Result<StatusBarEffect, StatusBarError> {
        advance(to: time)
        if let refusal = configuration.hierarchyRefusal { return .failure(refusal) }
        var effect = StatusBarEffect.unchanged
        if hierarchy != self.hierarchy {
            self.hierarchy = hierarchy
            effect.changed = true
        }
        let style = hierarchy.style
        let hidden = hierarchy.hidden
        if hidden.animation != animation {
            animation = hidden.animation
            effect.changed = true
        }
        setStyle(style.value, from: style.controller, into: &effect)
        setHidden(hidden.value, from: hidden.controller, into: &effect)
        effect.nextDeadline = nextDeadline
        return .success(effect)
    }

    private mutating func setStyle(_ style: StatusBarStyle, from decider: String, into effect: inout StatusBarEffect) {
        if style != self.style {
            self.style = style
            effect.changed = true
            effect.styleChanged = true
        }
        if decider != styleFrom {
            styleFrom = decider
            effect.changed = true
        }
    }

    /// Starts a hide or show from the bar's visibility now, over the share of the duration that
    /// remains: the same speed as a whole one. A change toward where the bar is already going
    /// changes nothing (a hide during a hide goes on as it was).
    private mutating func setHidden(_ hidden: Bool, from decider: String, into effect: inout StatusBarEffect) {
        if decider != hiddenFrom {
            hiddenFrom = decider
            effect.changed = true
        }
        guard hidden != self.hidden else { return }
        let visibility = self.visibility(at: now)
        let goal: Double = hidden ? 0 : 1
        let length =
            animation == .none ? Interval.zero : configuration.animationDuration.scaled(by: abs(goal - visibility))
        self.hidden = hidden
        if hidden { hiddenBy = animation }
        motion =
            length > .zero
            ? Motion(animation: animation, from: visibility, to: goal, start: now, length: length) : nil
        effect.changed = true
        effect.visibility = hidden ? .hide : .show
    }

    // MARK: - Reading

    /// 1 when shown, 0 when hidden, in between while a hide or show runs.
    func visibility(at time: Instant) -> Double {
        if let motion, motion.end > time { return motion.visibility(at: max(time, motion.start), curve: curve) }
        return hidden ? 0 : 1
    }

    private func runningMotion(at time: Instant) -> Motion? {
        guard let motion, motion.end > time else { return nil }
        return motion
    }

    /// The bar's alpha at `time`: a fade moves it, a slide keeps it 1, a hidden bar has 0.
    public func alpha(at time: Instant) -> Double {
        guard let motion = runningMotion(at: time) else { return hidden ? 0 : 1 }
        return motion.animation == .fade ? motion.visibility(at: time, curve: curve) : 1
    }

    /// The bar's offset at `time` for a bar `height` high: a slide moves it between 0 and −h, a
    /// fade keeps it 0; a hidden bar rests at −h if it slid out, else at 0.
    public func offset(at time: Instant, height: Double) -> Double {
        guard let motion = runningMotion(at: time) else {
            return hidden && hiddenBy == .slide ? -height : 0
        }
        return motion.animation == .slide ? (motion.visibility(at: time, curve: curve) - 1) * height : 0
    }

    /// The running hide or show at `time` as a reader draws it: `alpha`, or `contentOffset` for the
    /// offset (its JSON name is `offset`), in points of a bar `height` high.
    public func animation(at time: Instant, height: Double) -> Transition? {
        guard let motion = runningMotion(at: time) else { return nil }
        switch motion.animation {
        case .slide:
            return Transition(
                property: .contentOffset, from: (motion.from - 1) * height, to: (motion.to - 1) * height,
                start: motion.start, length: motion.length)
        case .fade, .none:
            return Transition(
                property: .alpha, from: motion.from, to: motion.to, start: motion.start, length: motion.length)
        }
    }

    /// The bar's frame: the overlay's frame in the same orientation on the same device.
    public func frame(orientation: Orientation, device: DeviceProfile) -> Rect {
        orientation.frame(on: device)
    }

    /// The bar at `time` (never earlier than `now`), as `GET /overlay` shows it.
    public func snapshot(at time: Instant, orientation: Orientation, device: DeviceProfile) -> StatusBarSnapshot {
        let at = max(time, now)
        let height = device.statusBarHeight
        return StatusBarSnapshot(
            style: style, hidden: hidden, alpha: alpha(at: at), offset: offset(at: at, height: height),
            frame: frame(orientation: orientation, device: device), animation: animation(at: at, height: height),
            curve: curve, styleFrom: styleFrom, hiddenFrom: hiddenFrom)
    }

    /// The overlay's own hide when the bar's hide (just started) holds it: beside the bar's, with
    /// the same start and length, `fade` taking alpha 1 → 0 and `slide` contentOffset 0 → −h.
    /// `nil` when the bar hid at once, or is not hiding. For an overlay that is fully shown: a show
    /// or rotation in progress completes at once first.
    public func overlayHide(statusBarHeight height: Double) -> Transition? {
        guard hidden, let motion, motion.end > now else { return nil }
        switch motion.animation {
        case .slide:
            return Transition(
                property: .contentOffset, from: 0, to: -height, start: motion.start, length: motion.length)
        case .fade, .none:
            return Transition(property: .alpha, from: 1, to: 0, start: motion.start, length: motion.length)
        }
    }
}

/// The status bar at one instant: the `statusBar` member of `GET /overlay`.
public struct StatusBarSnapshot: Hashable, Sendable {
    public var style: StatusBarStyle
    public var hidden: Bool
    public var alpha: Double
    public var offset: Double
    public var frame: Rect
    /// The running hide or show; `contentOffset` stands for the bar's `offset`.
    public var animation: Transition?
    public var curve: Curve
    public var styleFrom: String
    public var hiddenFrom: String
}
