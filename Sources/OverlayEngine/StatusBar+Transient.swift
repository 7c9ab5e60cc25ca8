// The status bar exactly as it was, for a rollback within one run (a restart keeps it at rest).
extension StatusBar {
    /// What `Record` leaves out: the running hide or show, and who decided style and hidden. A
    /// restart drops it (the bar comes back at rest, and its hierarchy decides again); a rollback
    /// puts it back, so that a hide or show under way goes on where it was.
    public struct Transient: Hashable, Sendable {
        public var motion: Motion?
        /// "application", or the controller whose preference gave the style.
        public var styleFrom: String
        /// "application", or the controller whose preference gave hidden.
        public var hiddenFrom: String

        public init(motion: Motion?, styleFrom: String, hiddenFrom: String) {
            self.motion = motion
            self.styleFrom = styleFrom
            self.hiddenFrom = hiddenFrom
        }

        /// A bar at rest, decided by the application: a bar at launch.
        public static let atRest = Transient(
            motion: nil, styleFrom: StatusBar.application, hiddenFrom: StatusBar.application)
    }

    public var transient: Transient {
        Transient(motion: motion, styleFrom: styleFrom, hiddenFrom: hiddenFrom)
    }

    /// The bar exactly as it was when `record` and `transient` were taken from it at `now`.
    public init(
        configuration: StatusBarConfiguration, curve: Curve, exactly record: Record, transient: Transient, now: Instant
    ) {
        self.init(configuration: configuration, curve: curve, now: now, record: record)
        motion = transient.motion
        styleFrom = transient.styleFrom
        hiddenFrom = transient.hiddenFrom
    }
}
