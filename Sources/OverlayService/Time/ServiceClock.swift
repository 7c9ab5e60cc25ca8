import OverlayEngine
import Platform
import Synchronization

/// The service's time: seconds since start on the monotonic clock, or a manual clock that only
/// `POST /clock` moves (MODEL §6).
final class ServiceClock: Sendable {
    let mode: ClockMode
    /// The monotonic reading that is time zero.
    let origin: Int64
    private let manualNanoseconds = Atomic<Int64>(0)
    /// Serialises writers of the manual clock; readers only load the atomic.
    private let manualWriter = Lock(())

    /// The Unix nanoseconds at time zero with the real clock (the engine's `wallClockEpoch`);
    /// nil with the manual clock. Read once: later steps of the wall clock move no deadline.
    let epoch: Int64?

    init(mode: ClockMode) {
        self.mode = mode
        self.origin = MonotonicClock.nanoseconds()
        self.epoch = mode == .real ? WallClock.nanoseconds() : nil
    }

    func now() -> Instant {
        switch mode {
        case .real: Instant(nanoseconds: MonotonicClock.nanoseconds() - origin)
        case .manual: Instant(nanoseconds: manualNanoseconds.load(ordering: .acquiring))
        }
    }

    /// The time at the monotonic reading `monotonic` (the real clock), or the manual clock's.
    func now(monotonic: Int64) -> Instant {
        switch mode {
        case .real: Instant(nanoseconds: monotonic - origin)
        case .manual: Instant(nanoseconds: manualNanoseconds.load(ordering: .acquiring))
        }
    }

    /// How long a `GET /overlay` answer may be sent again unchanged with the real clock: its
    /// `now` is then at most this much older than the request. nginx's cached time, one reading
    /// per pass of its event loop, is the same trade; one millisecond is a sixteenth of a frame.
    static let sharedReadWindow = Interval(nanoseconds: 1_000_000)

    /// Whether an answer computed at `earlier` may stand for a read at `later` of the same
    /// version. With the manual clock only the same instant does: every number stays exact.
    func sharesReading(_ earlier: Instant, with later: Instant) -> Bool {
        Self.sharesReading(mode, earlier, with: later)
    }

    /// `sharesReading` for a clock of `mode`.
    static func sharesReading(_ mode: ClockMode, _ earlier: Instant, with later: Instant) -> Bool {
        switch mode {
        case .real: later >= earlier && later.nanoseconds - earlier.nanoseconds < Self.sharedReadWindow.nanoseconds
        case .manual: later == earlier
        }
    }

    /// Moves the manual clock to `target(now)`; returns the new time, or nil if `target` refused.
    func moveManual(_ target: (Instant) -> Instant?) -> Instant? {
        manualWriter.withLock { _ in
            let now = Instant(nanoseconds: manualNanoseconds.load(ordering: .acquiring))
            guard let next = target(now), next >= now else { return nil }
            manualNanoseconds.store(next.nanoseconds, ordering: .releasing)
            return next
        }
    }

    /// Where a new channel's versions start. With the real clock, the wall-clock microseconds:
    /// a restarted process, even one that kept nothing (`--ephemeral`), starts beyond every
    /// version the previous one served, as long as that one made fewer than one change per
    /// microsecond it ran, so no reader sees a version repeat or go back. With the manual clock,
    /// 0: a test suite checks every number exactly, versions included.
    func firstVersion() -> UInt64 {
        switch mode {
        case .real: UInt64(max(0, WallClock.microseconds()))
        case .manual: 0
        }
    }

    /// The monotonic reading at which the engine time `instant` arrives (real clock only).
    func monotonic(at instant: Instant) -> Int64 {
        let (sum, overflow) = origin.addingReportingOverflow(instant.nanoseconds)
        return overflow ? .max : sum
    }
}
