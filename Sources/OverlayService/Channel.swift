import MicroHTTP
import OverlayEngine
import Synchronization

/// The service's time: seconds since start on the monotonic clock, or a manual clock that only
/// `POST /clock` moves (spec §6).
final class ServiceClock: Sendable {
    let mode: ClockMode
    /// The monotonic reading that is time zero.
    let origin: Int64
    private let manualNanoseconds = Atomic<Int64>(0)
    /// Serialises writers of the manual clock; readers only load the atomic.
    private let manualWriter = Mutex(())

    init(mode: ClockMode) {
        self.mode = mode
        self.origin = MonotonicClock.nanoseconds()
    }

    func now() -> Instant {
        switch mode {
        case .real: Instant(nanoseconds: MonotonicClock.nanoseconds() - origin)
        case .manual: Instant(nanoseconds: manualNanoseconds.load(ordering: .acquiring))
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

    /// The monotonic reading at which the engine time `instant` arrives (real clock only).
    func monotonic(at instant: Instant) -> Int64 {
        let (sum, overflow) = origin.addingReportingOverflow(instant.nanoseconds)
        return overflow ? .max : sum
    }
}

/// One overlay: an engine behind a lock, with its deadline registered with the scheduler.
///
/// Every access goes through `withEngine`: the engine first reaches the current time (read under
/// the lock, so time never runs backwards between callers), the caller's work runs, and only after
/// the lock is released is the next deadline handed to the scheduler.
final class Channel: Sendable {
    let name: String
    private let number: Int
    private let clock: ServiceClock
    private let scheduler: DeadlineScheduler?

    private struct State {
        var engine: OverlayEngine
        /// The deadline last handed to the scheduler, to skip rescheduling when it has not moved.
        var scheduled: Instant?
    }

    private let state: Mutex<State>

    init(
        name: String, number: Int, configuration: EngineConfiguration, clock: ServiceClock,
        scheduler: DeadlineScheduler?
    ) {
        self.name = name
        self.number = number
        self.clock = clock
        self.scheduler = scheduler
        self.state = Mutex(State(engine: OverlayEngine(configuration: configuration, now: clock.now())))
    }

    /// Runs `body` on the engine at the current time, under the channel's lock.
    func withEngine<T: Sendable>(_ body: (inout OverlayEngine, Instant) throws(APIError) -> T) throws(APIError) -> T {
        let outcome: Result<T, APIError>
        let reschedule: Instant??
        (outcome, reschedule) = state.withLock { state -> (Result<T, APIError>, Instant??) in
            let now = clock.now()
            state.engine.advance(to: now)
            let outcome: Result<T, APIError>
            do throws(APIError) {
                outcome = .success(try body(&state.engine, now))
            } catch {
                outcome = .failure(error)
            }
            let next = state.engine.nextDeadline
            guard next != state.scheduled else { return (outcome, nil) }
            state.scheduled = next
            return (outcome, .some(next))
        }
        if let reschedule { schedule(reschedule) }
        return try outcome.get()
    }

    /// Reaches every deadline up to now; the scheduler's firing and the manual clock call this.
    func advanceToNow() {
        _ = try? withEngine { _, _ in () }
    }

    private func schedule(_ deadline: Instant?) {
        guard let scheduler else { return }
        scheduler.schedule(key: number, at: deadline.map(clock.monotonic(at:))) { [weak self] in
            self?.deadlineReached()
        }
    }

    private func deadlineReached() {
        // The scheduler forgot this deadline when it fired: forget it here too, so that the next
        // access schedules whatever deadline comes next even if it is the same instant.
        state.withLock { $0.scheduled = nil }
        advanceToNow()
    }
}
