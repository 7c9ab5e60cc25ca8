#if canImport(Glibc)
    import Glibc
#endif

/// Seconds on CLOCK_MONOTONIC, as nanoseconds: the one clock every layer measures waits with
/// (connection timings, long-poll deadlines, the scheduler, the real overlay clock). Wall-clock
/// jumps neither delay nor hasten anything measured on it.
public enum MonotonicClock {
    public static func nanoseconds() -> Int64 {
        read(CLOCK_MONOTONIC)
    }

    /// The same clock read at the kernel's tick (a few milliseconds; never ahead of
    /// `nanoseconds()`), for a time stamp taken thousands of times a second where milliseconds
    /// do not matter: the kernel keeps it ready, so reading it costs no clock source access.
    public static func coarseNanoseconds() -> Int64 {
        read(CLOCK_MONOTONIC_COARSE)
    }

    @inline(__always)
    private static func read(_ clock: clockid_t) -> Int64 {
        var spec = timespec()
        clock_gettime(clock, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }
}
