/// A point on the overlay's clock: whole nanoseconds since the clock started.
///
/// Integer time keeps every deadline exact: 0.1 + 0.2 seconds is a deadline at 300,000,000 ns, not
/// at 0.30000000000000004 s, so a client that advances a manual clock by decimal steps reaches
/// deadlines exactly when docs/MODEL.md says it does.
public struct Instant: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    public static let zero = Instant(nanoseconds: 0)

    /// The instant `seconds` after the clock started, rounded to the nearest nanosecond.
    public static func seconds(_ seconds: Double) -> Instant {
        Instant(nanoseconds: Interval.seconds(seconds).nanoseconds)
    }

    /// Seconds since the clock started, as a reader sees them.
    public var seconds: Double { Double(nanoseconds) / 1e9 }

    public var description: String { "\(seconds)s" }

    public static func < (lhs: Instant, rhs: Instant) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// Saturates instead of trapping: a deadline beyond the end of time is simply never reached.
    public static func + (lhs: Instant, rhs: Interval) -> Instant {
        let (sum, overflow) = lhs.nanoseconds.addingReportingOverflow(rhs.nanoseconds)
        return Instant(nanoseconds: overflow ? (rhs.nanoseconds > 0 ? .max : .min) : sum)
    }

    public static func - (lhs: Instant, rhs: Instant) -> Interval {
        let (difference, overflow) = lhs.nanoseconds.subtractingReportingOverflow(rhs.nanoseconds)
        return Interval(nanoseconds: overflow ? (lhs > rhs ? .max : .min) : difference)
    }
}

/// A length of time in whole nanoseconds.
public struct Interval: Hashable, Comparable, Sendable, CustomStringConvertible {
    public var nanoseconds: Int64

    public init(nanoseconds: Int64) {
        self.nanoseconds = nanoseconds
    }

    public static let zero = Interval(nanoseconds: 0)

    /// The largest length of time the clock can represent from its start, about 292 years.
    public static let maximumSeconds: Double = 9.2e9

    /// `seconds` rounded to the nearest nanosecond; values beyond `maximumSeconds` saturate.
    public static func seconds(_ seconds: Double) -> Interval {
        guard seconds.isFinite else { return Interval(nanoseconds: seconds > 0 ? .max : .min) }
        let clamped = min(max(seconds, -maximumSeconds), maximumSeconds)
        return Interval(nanoseconds: Int64((clamped * 1e9).rounded()))
    }

    public var seconds: Double { Double(nanoseconds) / 1e9 }

    public var description: String { "\(seconds)s" }

    public static func < (lhs: Interval, rhs: Interval) -> Bool { lhs.nanoseconds < rhs.nanoseconds }

    /// This interval scaled by `factor` (0...1 in practice), rounded to the nearest nanosecond.
    public func scaled(by factor: Double) -> Interval {
        Interval(nanoseconds: Int64((Double(nanoseconds) * factor).rounded()))
    }
}
