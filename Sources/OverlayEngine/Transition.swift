/// One property moving linearly (or along the configured curve) from `from` to `to`; a bounce
/// and a rise have curves of their own.
public struct Transition: Hashable, Sendable {
    public enum Property: String, Hashable, Sendable {
        case contentOffset
        case alpha
        /// The incoming label's offset from its resting y during a rise: Hc to 0.
        case labelOffset
    }

    public var property: Property
    public var from: Double
    public var to: Double
    public var start: Instant
    public var length: Interval
    /// A `bounce` show: along the ease-out bounce curve, whatever the configured curve.
    public var bounces: Bool

    public init(
        property: Property, from: Double, to: Double, start: Instant, length: Interval, bounces: Bool = false
    ) {
        self.property = property
        self.from = from
        self.to = to
        self.start = start
        self.length = length
        self.bounces = bounces
    }

    public var end: Instant { start + length }

    /// The property's value at `time`, clamped to the transition's ends.
    public func value(at time: Instant, curve: Curve) -> Double {
        guard length > .zero else { return to }
        let fraction = Double((time - start).nanoseconds) / Double(length.nanoseconds)
        if fraction >= 1 { return to }
        // A bounce is written as the distance still to go, to − (to − from)(1 − b): from −Hw to 0
        // that is exactly −Hw × (1 − b(p)), the curve's own form.
        if bounces { return to - (to - from) * (1 - Curve.easeOutBounce(fraction)) }
        // A rise eases in and out whatever the configured curve, as MTStatusBarOverlay's does.
        if property == .labelOffset { return from + (to - from) * Curve.easeInOut.value(at: fraction) }
        return from + (to - from) * curve.value(at: fraction)
    }
}
