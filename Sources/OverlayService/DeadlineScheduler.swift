import MicroHTTP
import Platform

#if canImport(Glibc)
    import Glibc
#endif

/// One thread that sleeps until the earliest registered deadline and then calls its action.
///
/// Each key (a channel) has at most one deadline; scheduling again replaces it. The engine decides
/// what a deadline means: a firing only asks the channel to advance to the current time, so a
/// firing that has gone stale (the deadline moved while the thread woke) changes nothing.
final class DeadlineScheduler: @unchecked Sendable {
    typealias Action = @Sendable () -> Void

    private struct Entry {
        var deadline: Int64
        var action: Action
    }

    // Guarded by `mutex`; the condition variable waits on CLOCK_MONOTONIC so that wall-clock
    // jumps neither delay nor hasten a deadline.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var entries: [Int: Entry] = [:]
    private var stopped = false
    private var thread = pthread_t()

    init() {
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
        let context = Unmanaged.passRetained(self).toOpaque()
        pthread_create(
            &thread, nil,
            { context in
                let scheduler = Unmanaged<DeadlineScheduler>.fromOpaque(context!).takeRetainedValue()
                scheduler.run()
                return nil
            }, context)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Calls `action` on the scheduler's thread once the monotonic clock reaches `deadline`
    /// (nanoseconds); `nil` cancels the key's deadline.
    func schedule(key: Int, at deadline: Int64?, action: @escaping Action) {
        pthread_mutex_lock(mutex)
        if stopped {
            pthread_mutex_unlock(mutex)
            return
        }
        if let deadline {
            // The thread sleeps until the earliest deadline: it is woken only for an earlier one.
            let isEarliest = entries.values.allSatisfy { deadline < $0.deadline }
            entries[key] = Entry(deadline: deadline, action: action)
            if isEarliest { pthread_cond_signal(condition) }
        } else {
            entries[key] = nil
        }
        pthread_mutex_unlock(mutex)
    }

    /// Ends the thread and waits for it; pending deadlines are dropped (with what their actions
    /// hold).
    func stop() {
        pthread_mutex_lock(mutex)
        let wasRunning = !stopped
        stopped = true
        let dropped = entries
        entries = [:]
        pthread_cond_signal(condition)
        pthread_mutex_unlock(mutex)
        if wasRunning { pthread_join(thread, nil) }
        _ = dropped
    }

    private func run() {
        pthread_mutex_lock(mutex)
        while !stopped {
            guard let (key, entry) = entries.min(by: { $0.value.deadline < $1.value.deadline }) else {
                pthread_cond_wait(condition, mutex)
                continue
            }
            let now = MonotonicClock.nanoseconds()
            if entry.deadline > now {
                var until = timespec(
                    tv_sec: Int(entry.deadline / 1_000_000_000), tv_nsec: Int(entry.deadline % 1_000_000_000))
                pthread_cond_timedwait(condition, mutex, &until)
                continue
            }
            entries[key] = nil
            // The action takes the channel's lock and may schedule again: never under ours.
            pthread_mutex_unlock(mutex)
            entry.action()
            pthread_mutex_lock(mutex)
        }
        pthread_mutex_unlock(mutex)
    }
}
