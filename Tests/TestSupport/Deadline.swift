#if canImport(Glibc)
    import Glibc
#endif

/// A moment on the monotonic clock some seconds from now: the bound of a wait, never a
/// measurement.
public struct Deadline: Sendable {
    private let seconds: Double

    public init(after seconds: Double) {
        self.seconds = Deadline.now() + seconds
    }

    public var hasPassed: Bool { Deadline.now() >= seconds }

    /// Seconds left, 0 once passed.
    public var remaining: Double { max(0, seconds - Deadline.now()) }

    /// Seconds since the deadline passed (negative before it): from `Deadline(after: 0)`, the
    /// time since then.
    public var overdue: Double { Deadline.now() - seconds }

    /// What is left in whole milliseconds, for `poll`.
    public var remainingMilliseconds: Int32 { Int32(min(remaining * 1000, Double(Int32.max)).rounded(.up)) }

    private static func now() -> Double {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Double(spec.tv_sec) + Double(spec.tv_nsec) / 1e9
    }
}
