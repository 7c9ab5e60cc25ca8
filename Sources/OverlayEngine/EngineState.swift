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
    /// The orientation whose frame the window has.
    public var orientation: Orientation
    /// Where a rotation in `rotatingOut` is heading: the orientation a client last PUT.
    public var rotationTarget: Orientation?
    public var phase: Phase
    public var transition: Transition?
    /// The message on the overlay, shown or ended and still drawn.
    public var currentID: Int64?
    /// The `queueOrder` of the queue's ends.
    public var headOrder: Int64
    public var tailOrder: Int64

    public init(
        version: UInt64 = 0, nextID: Int64 = 1, now: Instant = .zero, device: String = "",
        orientation: Orientation = .portrait, rotationTarget: Orientation? = nil, phase: Phase = .hidden,
        transition: Transition? = nil, currentID: Int64? = nil, headOrder: Int64 = 0, tailOrder: Int64 = 0
    ) {
        self.version = version
        self.nextID = nextID
        self.now = now
        self.device = device
        self.orientation = orientation
        self.rotationTarget = rotationTarget
        self.phase = phase
        self.transition = transition
        self.currentID = currentID
        self.headOrder = headOrder
        self.tailOrder = tailOrder
    }
}
