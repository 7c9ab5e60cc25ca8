/// One property moving linearly (or along the configured curve) from `from` to `to`.
public struct Transition: Hashable, Sendable {
    public enum Property: String, Hashable, Sendable {
        case contentOffset
        case alpha
    }

    public var property: Property
    public var from: Double
    public var to: Double
    public var start: Instant
    public var length: Interval

    public init(property: Property, from: Double, to: Double, start: Instant, length: Interval) {
        self.property = property
        self.from = from
        self.to = to
        self.start = start
        self.length = length
    }

    public var end: Instant { start + length }

    /// The property's value at `time`, clamped to the transition's ends.
    public func value(at time: Instant, curve: Curve) -> Double {
        guard length > .zero else { return to }
        let fraction = Double((time - start).nanoseconds) / Double(length.nanoseconds)
        if fraction >= 1 { return to }
        return from + (to - from) * curve.value(at: fraction)
    }
}
