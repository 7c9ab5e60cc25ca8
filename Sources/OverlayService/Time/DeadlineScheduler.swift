import Platform

/// What a deadline of the scheduler is for. Each key has at most one deadline at a time.
enum TimerKey: Hashable, Sendable {
    /// The next deadline of a channel's engine (an animation's or a message's end).
    case engine(channel: Int)
    /// The earliest end of a channel's long-poll waits.
    case waiters(channel: Int)
    /// The comment lines that keep idle event streams open.
    case heartbeat
    /// The once-a-second look for readers whose clients went away.
    case sweep
    /// The expiry of the credential a reader is held with (`HeldReaders`).
    case credential(Int)
}

/// One thread that sleeps until the earliest registered deadline and then calls its action.
///
/// Scheduling a key again replaces its deadline. The engine decides what a deadline means: a
/// firing only asks the channel to advance to the current time, so a firing that has gone stale
/// (the deadline moved while the thread woke) changes nothing.
final class DeadlineScheduler: Sendable {
    typealias Action = @Sendable () -> Void

    private struct State: Sendable {
        var deadlines = DeadlineQueue<TimerKey, Action>()
        var stopped = false
    }

    private enum Step {
        case fire(Action)
        case stop
    }

    private let thread = ConditionThread(State())

    init() {
        // The thread holds the scheduler until `stop`.
        thread.start { [self] in run() }
    }

    /// Calls `action` on the scheduler's thread once the monotonic clock reaches `deadline`
    /// (nanoseconds); `nil` cancels the key's deadline.
    func schedule(_ key: TimerKey, at deadline: Int64?, action: @escaping Action) {
        thread.withLock { locked in
            guard !locked.state.stopped else { return }
            guard let deadline else {
                locked.state.deadlines.cancel(key)
                return
            }
            // The thread sleeps until the earliest deadline: it is woken only for an earlier one.
            if locked.state.deadlines.schedule(key, at: deadline, action) { locked.signal() }
        }
    }

    /// `schedule` for a key whose handovers are made by several threads and may arrive out of
    /// order: one stamped with an older `generation` than the newest the key had is ignored, so
    /// the key keeps the deadline its owner decided last.
    func schedule(_ key: TimerKey, at deadline: Int64?, generation: UInt64, action: @escaping Action) {
        thread.withLock { locked in
            guard !locked.state.stopped else { return }
            if locked.state.deadlines.schedule(key, at: deadline, generation: generation, action) { locked.signal() }
        }
    }

    /// Drops `keys`' deadlines and their handover order, for an owner that will never schedule
    /// them again.
    func forget(_ keys: [TimerKey]) {
        thread.withLock { locked in
            for key in keys { locked.state.deadlines.forget(key) }
        }
    }

    /// Keys whose handover order is kept (for tests of `forget`).
    var orderedKeys: Int { thread.withLock { $0.state.deadlines.orderedKeys } }

    /// Deadlines waiting to fire (for tests of those cancelled).
    var pending: Int { thread.withLock { $0.state.deadlines.count } }

    /// Ends the thread and waits for it; pending deadlines are dropped (with what their actions
    /// hold).
    func stop() {
        let dropped = thread.withLock { locked in
            locked.state.stopped = true
            locked.signal()
            return locked.state.deadlines.removeAll()
        }
        thread.join()
        _ = dropped
    }

    private func run() {
        while case .fire(let action) = nextStep() {
            // The action takes the channel's lock and may schedule again: never under ours.
            action()
        }
    }

    private func nextStep() -> Step {
        thread.withLock { locked in
            while !locked.state.stopped {
                guard let earliest = locked.state.deadlines.earliest else {
                    locked.wait()
                    continue
                }
                if let due = locked.state.deadlines.popDue(now: MonotonicClock.nanoseconds()) {
                    return .fire(due.payload)
                }
                locked.wait(untilMonotonic: earliest)
            }
            return .stop
        }
    }
}
