#if canImport(Glibc)
    import Glibc
#endif

/// The wall clock (CLOCK_REALTIME), for what must hold across processes rather than measure a
/// wait: where a new channel's versions start, and the calendar time a message is scheduled for.
public enum WallClock {
    /// Microseconds since the Unix epoch (about 1.8 × 10¹⁵ in 2027: exact in a JSON number, whose
    /// integers are exact up to 2⁵³, until the year 2255).
    public static func microseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1_000_000 + Int64(spec.tv_nsec) / 1_000
    }

    /// Nanoseconds since the Unix epoch: what a scheduled message's calendar time is measured on.
    public static func nanoseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_REALTIME, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }
}
