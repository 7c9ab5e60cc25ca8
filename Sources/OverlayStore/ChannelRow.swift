import OverlayEngine

/// A channel's row: the engine's state, with the reservations that keep versions and ids from
/// repeating after a crash, and the status bar (its controllers are rows of their own, and so is
/// the message an overlay hiding beside the bar draws).
struct ChannelRow {
    var name: String
    var state: EngineState
    var versionReserved: UInt64
    var idReserved: Int64
    // The status bar's record is null in a row stored before there was one: such a channel starts
    // with the configured launch state.
    var statusBarStyle: StatusBarStyle? = nil
    var statusBarHidden: Bool? = nil
    var statusBarAnimation: StatusBarAnimation? = nil
    var statusBarHiddenBy: StatusBarAnimation? = nil
    /// The hierarchy's root; null when no hierarchy was sent.
    var statusBarRoot: String? = nil

    /// The row of `state`, the status bar's columns included.
    init(name: String, state: EngineState, versionReserved: UInt64, idReserved: Int64) {
        self.name = name
        self.state = state
        self.versionReserved = versionReserved
        self.idReserved = idReserved
        if let bar = state.statusBar {
            statusBarStyle = bar.style
            statusBarHidden = bar.hidden
            statusBarAnimation = bar.animation
            statusBarHiddenBy = bar.hiddenBy
            statusBarRoot = bar.hierarchy?.root
        }
    }

    /// A row to read into: every field is set from its column.
    static var empty: ChannelRow {
        ChannelRow(name: "", state: EngineState(), versionReserved: 0, idReserved: 1)
    }

    /// The status bar the columns hold, with `hierarchy` read from its rows; nil for a row from
    /// before the status bar was stored.
    func statusBar(hierarchy: ControllerHierarchy?) -> StatusBar.Record? {
        guard let statusBarStyle, let statusBarHidden, let statusBarAnimation, let statusBarHiddenBy else {
            return nil
        }
        return StatusBar.Record(
            style: statusBarStyle, hidden: statusBarHidden, animation: statusBarAnimation,
            hiddenBy: statusBarHiddenBy, hierarchy: hierarchy)
    }

    // The running animation is five columns, null when there is none. Read in the list's
    // order, the property comes first and decides whether there is one.
    var transitionProperty: Transition.Property? {
        get { state.transition?.property }
        set {
            guard let newValue else {
                state.transition = nil
                return
            }
            state.transition = Transition(property: newValue, from: 0, to: 0, start: .zero, length: .zero)
        }
    }
    var transitionFrom: Double? {
        get { state.transition?.from }
        set { if let newValue { state.transition?.from = newValue } }
    }
    var transitionTo: Double? {
        get { state.transition?.to }
        set { if let newValue { state.transition?.to = newValue } }
    }
    var transitionStart: Instant? {
        get { state.transition?.start }
        set { if let newValue { state.transition?.start = newValue } }
    }
    var transitionLength: Interval? {
        get { state.transition?.length }
        set { if let newValue { state.transition?.length = newValue } }
    }
    /// Null in a row from before bounces: such a transition does not bounce.
    var transitionBounces: Bool? {
        get { state.transition?.bounces }
        set { if let newValue { state.transition?.bounces = newValue } }
    }

    // The outgoing label of a rise under way, the same way: three columns, the text first.
    var riseText: String? {
        get { state.rise?.text }
        set { state.rise = newValue.map { Rise(text: $0, restingY: 0, height: 0) } }
    }
    var riseRestingY: Double? {
        get { state.rise?.restingY }
        set { if let newValue { state.rise?.restingY = newValue } }
    }
    var riseHeight: Double? {
        get { state.rise?.height }
        set { if let newValue { state.rise?.height = newValue } }
    }

    // The status bar's running hide or show, the same way: five columns, the animation first.
    var statusBarMotionAnimation: StatusBarAnimation? {
        get { state.statusBarTransient.motion?.animation }
        set {
            guard let newValue else {
                state.statusBarTransient.motion = nil
                return
            }
            state.statusBarTransient.motion = StatusBar.Motion(
                animation: newValue, from: 0, to: 0, start: .zero, length: .zero)
        }
    }
    var statusBarMotionFrom: Double? {
        get { state.statusBarTransient.motion?.from }
        set { if let newValue { state.statusBarTransient.motion?.from = newValue } }
    }
    var statusBarMotionTo: Double? {
        get { state.statusBarTransient.motion?.to }
        set { if let newValue { state.statusBarTransient.motion?.to = newValue } }
    }
    var statusBarMotionStart: Instant? {
        get { state.statusBarTransient.motion?.start }
        set { if let newValue { state.statusBarTransient.motion?.start = newValue } }
    }
    var statusBarMotionLength: Interval? {
        get { state.statusBarTransient.motion?.length }
        set { if let newValue { state.statusBarTransient.motion?.length = newValue } }
    }
}
