#if canImport(Glibc)
    import Glibc
#endif

/// Seconds on CLOCK_MONOTONIC, as nanoseconds: the one clock every layer measures waits with
/// (connection timings, long-poll deadlines, the scheduler, the real overlay clock). Wall-clock
/// jumps neither delay nor hasten anything measured on it.
public enum MonotonicClock {
    public static func nanoseconds() -> Int64 {
        var spec = timespec()
        clock_gettime(CLOCK_MONOTONIC, &spec)
        return Int64(spec.tv_sec) * 1_000_000_000 + Int64(spec.tv_nsec)
    }
}
