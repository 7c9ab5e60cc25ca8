#if canImport(Glibc)
    import Glibc
#endif

/// A value guarded by a lock, a condition variable to wait for it to change, and one thread that
/// works on it: the store's writer and the deadline scheduler are both one of these.
///
/// The state is only reached inside `withLock`. There, `Locked` offers the waits: `wait()` until
/// another thread signals, `wait(untilMonotonic:)` until then at the latest, measured on
/// CLOCK_MONOTONIC so that wall-clock jumps neither delay nor hasten it. Work that must not hold
/// the lock (a commit, a callback) is done between two `withLock` calls, never inside one.
// Safe to share: `state` is only read or written inside `withLock`, which holds `mutex`, and the
// pthread objects stay at one heap address from `init` to `deinit`.
public final class ConditionThread<State: Sendable>: @unchecked Sendable {
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private let state = UnsafeMutablePointer<State>.allocate(capacity: 1)
    /// The thread, from `start` until `join`; guarded by `mutex`.
    private var thread: pthread_t?

    public init(_ initial: State) {
        state.initialize(to: initial)
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
    }

    deinit {
        state.deinitialize(count: 1)
        state.deallocate()
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// The state under the lock, with the waits and wake-ups of the condition variable.
    ///
    /// Each `state` access reads or writes the guarded value in place; none is held across a
    /// wait, so a loop such as `while locked.state.isEmpty { locked.wait() }` sees what another
    /// thread changed while it waited.
    public struct Locked {
        // The owner's pthread objects and state, which stay put while it runs `withLock`.
        fileprivate let mutex: UnsafeMutablePointer<pthread_mutex_t>
        fileprivate let condition: UnsafeMutablePointer<pthread_cond_t>
        fileprivate let statePointer: UnsafeMutablePointer<State>

        public var state: State {
            unsafeAddress { UnsafePointer(statePointer) }
            nonmutating unsafeMutableAddress { statePointer }
        }

        /// Releases the lock until another thread calls `signal` or `broadcast` (or spuriously).
        public func wait() {
            pthread_cond_wait(condition, mutex)
        }

        /// Like `wait`, but returns by the monotonic time `nanoseconds` at the latest.
        public func wait(untilMonotonic nanoseconds: Int64) {
            var until = timespec(tv_sec: Int(nanoseconds / 1_000_000_000), tv_nsec: Int(nanoseconds % 1_000_000_000))
            pthread_cond_timedwait(condition, mutex, &until)
        }

        /// Wakes one waiting thread.
        public func signal() {
            pthread_cond_signal(condition)
        }

        /// Wakes every waiting thread.
        public func broadcast() {
            pthread_cond_broadcast(condition)
        }
    }

    /// Runs `body` with the lock held.
    public func withLock<Result, Failure: Error>(
        _ body: (Locked) throws(Failure) -> Result
    ) throws(Failure) -> Result {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        return try body(Locked(mutex: mutex, condition: condition, statePointer: state))
    }

    /// Starts the thread, which runs `body` once; a second call does nothing. `body` holds what
    /// it captures until it returns.
    public func start(_ body: @escaping @Sendable () -> Void) {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard thread == nil else { return }
        let context = Unmanaged.passRetained(ThreadBody(body)).toOpaque()
        var handle = pthread_t()
        let status = pthread_create(
            &handle, nil,
            { context in
                Unmanaged<ThreadBody>.fromOpaque(context!).takeRetainedValue().run()
                return nil
            }, context)
        guard status == 0 else {
            Unmanaged<ThreadBody>.fromOpaque(context).release()
            fatalError("cannot start a thread: pthread_create returned \(status)")
        }
        thread = handle
    }

    /// Lets the thread end by itself, unwaited: for a thread stuck in a call its owner will not
    /// wait for (a request that hangs). Does nothing if it never started or was joined already.
    public func detach() {
        pthread_mutex_lock(mutex)
        let handle = thread
        thread = nil
        pthread_mutex_unlock(mutex)
        if let handle { pthread_detach(handle) }
    }

    /// Waits for the thread's body to return (the caller must first make it return, through the
    /// state). Does nothing if it never started or was joined already; never call it from the
    /// thread itself.
    public func join() {
        pthread_mutex_lock(mutex)
        let handle = thread
        thread = nil
        pthread_mutex_unlock(mutex)
        if let handle { pthread_join(handle, nil) }
    }
}

/// The closure a thread runs, boxed to pass through `pthread_create`'s context pointer.
private final class ThreadBody {
    let run: @Sendable () -> Void

    init(_ run: @escaping @Sendable () -> Void) {
        self.run = run
    }
}
