import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

#if !PTHREAD_LOCKS
    /// A value reached only under a lock: the project's one lock type, with `Mutex`'s `withLock`.
    ///
    /// The standard library's `Mutex` (a futex, taken and released inline), except in the
    /// ThreadSanitizer build (`scripts/sanitize thread` defines `PTHREAD_LOCKS`): on Swift 6.3 for
    /// Linux the sanitizer does not understand that futex, so every access under it was reported
    /// as a race and the real ones were lost among them; it sees the `pthread_mutex_t` below. Both
    /// exclude alike, so the sanitizer checks the same discipline. A stream event takes its
    /// stream's lock three times: 3,374 instructions through pthread, 3,173 through `Mutex`
    /// (bench/instructions --only sse --n2 8000, medians of six runs).
    public struct Lock<Value>: ~Copyable {
        @usableFromInline let mutex: Mutex<Value>

        @inlinable
        public init(_ initial: consuming sending Value) {
            mutex = Mutex(initial)
        }

        /// Runs `body` on the value with the lock held. Not reentrant: `body` must not take this
        /// lock again (it would deadlock).
        @inlinable
        public borrowing func withLock<Result, Failure: Error>(
            _ body: (inout sending Value) throws(Failure) -> sending Result
        ) throws(Failure) -> sending Result {
            try mutex.withLock(body)
        }
    }

    extension Lock: Sendable {}
#else
    /// The ThreadSanitizer build's `Lock` (see above): over a `pthread_mutex_t`. The mutex and the
    /// value share one heap block, made once, so the mutex never moves (pthread requires that) and
    /// locking touches one cache line.
    public struct Lock<Value>: ~Copyable {
        /// Keeps the block alive; the lock only goes through the pointers below.
        @usableFromInline let storage: LockStorage<Value>
        /// Where the value and the mutex are, found once: reaching them through the storage at each
        /// lock was an access to its header before the mutex was taken, which ThreadSanitizer
        /// reported as a race with the access under the lock of another thread.
        @usableFromInline let value: UnsafeMutablePointer<Value>
        @usableFromInline let mutex: UnsafeMutablePointer<pthread_mutex_t>

        @inlinable
        public init(_ initial: consuming sending Value) {
            storage = LockStorage.make(initial)
            value = storage.value
            mutex = storage.mutex
        }

        /// Runs `body` on the value with the lock held. Not reentrant: `body` must not take this lock
        /// again (it would deadlock).
        @inlinable
        public borrowing func withLock<Result, Failure: Error>(
            _ body: (inout sending Value) throws(Failure) -> sending Result
        ) throws(Failure) -> sending Result {
            // The value is passed as `sending`, as `Mutex` passes it: the lock keeps it in a region
            // of its own, which the checker cannot see through the storage's pointer.
            nonisolated(unsafe) let value = value
            pthread_mutex_lock(mutex)
            defer { pthread_mutex_unlock(mutex) }
            return try body(&value.pointee)
        }
    }

    // Safe to share, as `Mutex` is: the value is only reached inside `withLock`, which holds the
    // mutex, and it comes in and goes out as `sending`, so no other reference to it is left outside.
    extension Lock: @unchecked Sendable {}

    /// The value (the buffer's header) and its mutex (its one element), in one allocation.
    @usableFromInline
    final class LockStorage<Value>: ManagedBuffer<Value, pthread_mutex_t> {
        @inlinable
        static func make(_ initial: Value) -> LockStorage {
            let storage = create(minimumCapacity: 1) { _ in initial } as! LockStorage
            storage.withUnsafeMutablePointerToElements { mutex in
                mutex.initialize(to: pthread_mutex_t())
                precondition(pthread_mutex_init(mutex, nil) == 0, "pthread_mutex_init failed")
            }
            return storage
        }

        /// Where the value is; the storage holds it there until it is freed.
        @inlinable
        var value: UnsafeMutablePointer<Value> { withUnsafeMutablePointerToHeader { $0 } }

        /// Where the mutex is; it never moves.
        @inlinable
        var mutex: UnsafeMutablePointer<pthread_mutex_t> { withUnsafeMutablePointerToElements { $0 } }

        deinit {
            withUnsafeMutablePointerToElements { mutex in
                pthread_mutex_destroy(mutex)
                mutex.deinitialize(count: 1)
            }
        }
    }
#endif
