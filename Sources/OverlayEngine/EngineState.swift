/// What a store keeps of an engine besides its messages: the one type it writes (built from a
/// running engine by `OverlayEngine.state`) and reads back to rebuild the engine.
public struct EngineState: Hashable, Sendable {
    public var version: UInt64
    public var nextID: Int64
    /// The orientation a restart shows: during a rotation, its target (the one a client last PUT
    /// and was answered for).
    public var orientation: Orientation
    /// The device profile's name.
    public var device: String
    /// The status bar at rest and its hierarchy; nil for a channel stored before there was one,
    /// which starts with the configured launch state.
    public var statusBar: StatusBar.Record?

    public init(
        version: UInt64 = 0, nextID: Int64 = 1, orientation: Orientation = .portrait, device: String = "",
        statusBar: StatusBar.Record? = nil
    ) {
        self.version = version
        self.nextID = nextID
        self.orientation = orientation
        self.device = device
        self.statusBar = statusBar
    }
}
