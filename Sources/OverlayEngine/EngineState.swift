/// What a store keeps of an engine besides its messages: the one type it writes (built from a
/// running engine by `OverlayEngine.state`) and reads back to rebuild the engine, after a restart
/// or exactly as it was (`OverlayEngine.exactly`).
public struct EngineState: Hashable, Sendable {
    public var version: UInt64
    public var nextID: Int64
    /// The time of the latest event or deadline, on the clock of the run that recorded it.
    public var now: Instant
    /// The device profile's name.
    public var device: String
    /// The presentation asked for (`auto` included); nil for a channel stored before there were
    /// presentations, which takes the configured one.
    public var presentation: Presentation?
    /// The orientation whose frame the window has.
    public var orientation: Orientation
    /// Where a rotation in `rotatingOut` is heading: the orientation a client last PUT.
    public var rotationTarget: Orientation?
    public var phase: Phase
    public var transition: Transition?
    /// The outgoing label of a rise under way: a rollback restores it, a restart shows the
    /// message again from the start.
    public var rise: Rise?
    /// The message on the overlay, shown or ended and still drawn.
    public var currentID: Int64?
    /// The `queueOrder` of the queue's ends.
    public var headOrder: Int64
    public var tailOrder: Int64
    /// The status bar at rest and its hierarchy; nil for a channel stored before there was one,
    /// which starts with the configured launch state.
    public var statusBar: StatusBar.Record?
    /// The rest of the status bar (its running hide or show, who decided it): a rollback restores
    /// it, a restart leaves the bar at rest.
    public var statusBarTransient: StatusBar.Transient
    /// The message the overlay still draws while it hides beside the status bar: a copy of the one
    /// it showed, taken when the hide started, which later writes to that message do not change.
    public var leaving: Message?
    /// When the hold of the overlay began: a rollback restores it, a restart releases it.
    public var heldSince: Instant?
    /// The Unix nanoseconds at instant zero of the clock these times are on (the real clock);
    /// nil for the manual clock, or a channel stored before there were scheduled messages. A
    /// restart moves stored times by the difference of the two runs' epochs.
    public var wallClockEpoch: Int64?
    /// The version at which the announcement last changed (MODEL §14); nil for a channel stored
    /// before there were announcements.
    public var announcementVersion: UInt64?

    public init(
        version: UInt64 = 0, nextID: Int64 = 1, now: Instant = .zero, device: String = "",
        presentation: Presentation? = nil, orientation: Orientation = .portrait, rotationTarget: Orientation? = nil,
        phase: Phase = .hidden,
        transition: Transition? = nil, rise: Rise? = nil, currentID: Int64? = nil, headOrder: Int64 = 0,
        tailOrder: Int64 = 0,
        statusBar: StatusBar.Record? = nil, statusBarTransient: StatusBar.Transient = .atRest, leaving: Message? = nil,
        heldSince: Instant? = nil, wallClockEpoch: Int64? = nil, announcementVersion: UInt64? = nil
    ) {
        self.version = version
        self.nextID = nextID
        self.now = now
        self.device = device
        self.presentation = presentation
        self.orientation = orientation
        self.rotationTarget = rotationTarget
        self.phase = phase
        self.transition = transition
        self.rise = rise
        self.currentID = currentID
        self.headOrder = headOrder
        self.tailOrder = tailOrder
        self.statusBar = statusBar
        self.statusBarTransient = statusBarTransient
        self.leaving = leaving
        self.heldSince = heldSince
        self.wallClockEpoch = wallClockEpoch
        self.announcementVersion = announcementVersion
    }
}
