import OverlayEngine
import Platform
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// overlayd's state in SQLite (WAL), written by one thread that commits everything submitted
/// since its last commit in one transaction (group commit): a burst of concurrent POSTs costs one
/// fsync, not one each.
///
/// Callers submit records under their channel's lock (so one channel's records are written in
/// the order they happened) and learn a sequence number; `whenDurable` calls back once the
/// commit holding that sequence has reached the disk.
///
/// Versions and ids are reserved ahead: the stored reservation is always beyond anything a
/// reader may have seen, even of a change not yet committed when the process died, so after a
/// restart neither an ETag nor an id repeats.
public final class OverlayStore: Sendable {
    public static let fileName = "overlayd.sqlite"

    public let path: String
    /// The data directory's lock, held until `close()` (-1 once released).
    private let lockDescriptor: Atomic<Int32>
    let writer: StoreWriter
    /// The tokens made through the API, on their own connection.
    public let tokens: TokenStore
    private let thread = ConditionThread(Queue())

    /// What the writer thread and the submitters share, under the thread's lock.
    private struct Queue: Sendable {
        var pending: [(sequence: UInt64, record: ChannelRecord)] = []
        var submitted: UInt64 = 0
        /// Every sequence up to this one is committed or failed.
        var committed: UInt64 = 0
        var callbacks: [UInt64: [@Sendable (Bool) -> Void]] = [:]
        /// The latest failed sequences (a writer may ask after the fact), oldest first.
        var failed: Set<UInt64> = []
        var failedInOrder: [UInt64] = []
        /// Failed sequences whose writers are not answered yet: they are, once every channel
        /// they touched is rolled back.
        var unanswered: [UInt64] = []
        var rollback: Rollback?
        /// Whether the writer holds a batch it has not finished with.
        var committing = false
        /// Set by a test: the writer takes its next batch, then waits before writing it.
        var holdingNextCommit = false
        var running = false
        var stopping = false

        func isResolved(_ sequence: UInt64) -> Bool { sequence <= committed || failed.contains(sequence) }

        mutating func fail(_ sequence: UInt64) {
            failed.insert(sequence)
            failedInOrder.append(sequence)
            unanswered.append(sequence)
            if failedInOrder.count > 4096 { failed.remove(failedInOrder.removeFirst()) }
        }

        mutating func takeCallbacks(_ sequences: some Sequence<UInt64>) -> [@Sendable (Bool) -> Void] {
            var due: [@Sendable (Bool) -> Void] = []
            for sequence in sequences {
                if let waiting = callbacks.removeValue(forKey: sequence) { due += waiting }
            }
            return due
        }
    }

    /// What the writer thread does for each channel whose commit failed, before the writers of
    /// the failed changes are answered: it gets the channel's name and a function that reads what
    /// the database holds of it (nil if nothing), to put the channel back to that.
    public typealias Rollback =
        @Sendable (_ channel: String, _ stored: () throws(StoreError) -> LoadedChannel?) -> Void

    /// How long the writer waits after a failed commit before the next: a disk that stays full
    /// makes a commit fail, its rollback, and the same deadlines reached again, a few times a
    /// second at most rather than as fast as the disk can refuse.
    static let backoffNanoseconds: Int64 = 100_000_000

    /// Commits that fail on purpose, for tests of what a failed commit does.
    private let injectedFailures = Atomic<Int>(0)

    /// Opens (creating if needed) the store in `directory`, checks it, and brings its schema up to
    /// date. A file that is not a readable overlayd database is an error, never replaced.
    public init(directory: String) throws(StoreError) {
        try StoreFiles.makeDirectory(directory)
        let folder = directory.hasSuffix("/") ? directory : directory + "/"
        path = folder + OverlayStore.fileName
        // One process owns the data directory: a second one fails here instead of interleaving
        // its writes. A lock file rather than SQLite's exclusive mode, so that `sqlite3 .backup`
        // can still read the database while overlayd runs.
        let lock = try StoreFiles.lock(folder + "overlayd.lock")
        lockDescriptor = Atomic(lock)
        var opened = false
        defer { if !opened { Glibc.close(lock) } }
        let database = try Database(path: path)
        do {
            // A backup reading the database may hold it for a moment: wait rather than fail.
            try database.execute("PRAGMA busy_timeout = 5000")
            try database.execute("PRAGMA journal_mode = WAL")
            try database.execute("PRAGMA synchronous = FULL")
        } catch {
            throw StoreError("\(path) cannot be used: \(error)")
        }
        try StoreFiles.checkIntegrity(database)
        try Schema.migrate(database)
        // One real write, so that a database that cannot be written (a read-only file, journal or
        // file system: SQLite then opens it read-only) stops start-up instead of failing every
        // commit later.
        do {
            try database.execute("BEGIN IMMEDIATE; UPDATE schema_version SET version = version; COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            throw StoreError("\(path) cannot be written: \(error)")
        }
        writer = try StoreWriter(database: database)
        tokens = try TokenStore(path: path)
        opened = true
    }

    deinit {
        close()
    }

    // MARK: - Start-up

    /// Every stored channel, with its reservations applied: the version and next id a restarted
    /// channel continues from are beyond anything served before. Call it before `start`.
    public func load() throws(StoreError) -> [LoadedChannel] {
        try writer.load()
    }

    /// Starts the writer thread; records submitted before are kept. After a failed commit it
    /// calls `rollback` for each channel the commit touched.
    public func start(rollingBack rollback: Rollback? = nil) {
        let starts = thread.withLock { locked in
            defer { locked.state.running = true }
            locked.state.rollback = rollback
            return !locked.state.running
        }
        // The thread holds the store until `close` ends it.
        if starts { thread.start { [self] in run() } }
    }

    // MARK: - Writing

    /// Queues `record` for the next commit and returns its sequence number.
    public func submit(_ record: ChannelRecord) -> UInt64 {
        thread.withLock { locked in
            locked.state.submitted += 1
            let sequence = locked.state.submitted
            locked.state.pending.append((sequence, record))
            locked.broadcast()
            return sequence
        }
    }

    /// Calls `completion` (on the writer thread, or at once) with true once `sequence` is on disk,
    /// false if its commit failed.
    public func whenDurable(_ sequence: UInt64, _ completion: @escaping @Sendable (Bool) -> Void) {
        let resolved = thread.withLock { locked -> Bool? in
            guard !locked.state.isResolved(sequence) else { return !locked.state.failed.contains(sequence) }
            locked.state.callbacks[sequence, default: []].append(completion)
            return nil
        }
        if let resolved { completion(resolved) }
    }

    /// Blocks until `sequence` is on disk; false if its commit failed, or if this store never gave
    /// it (one from another store's run would otherwise be waited for forever).
    public func waitUntilDurable(_ sequence: UInt64) -> Bool {
        thread.withLock { locked in
            guard sequence <= locked.state.submitted else { return false }
            while !locked.state.isResolved(sequence) && locked.state.running { locked.wait() }
            return !locked.state.failed.contains(sequence)
        }
    }

    /// Blocks until everything submitted so far is committed; false if the last of it failed.
    @discardableResult
    public func flush() -> Bool {
        waitUntilDurable(thread.withLock { $0.state.submitted })
    }

    /// Takes this channel's records that wait for a commit out of the queue; they fail (their
    /// writers are answered false once the rollback is done). For a rollback: the records were
    /// made on the state it undoes.
    public func discardPending(channel: String) {
        thread.withLock { locked in
            var kept: [(sequence: UInt64, record: ChannelRecord)] = []
            for entry in locked.state.pending {
                if entry.record.name == channel { locked.state.fail(entry.sequence) } else { kept.append(entry) }
            }
            locked.state.pending = kept
        }
    }

    /// Whether the writer is busy with a batch (for tests that hold a commit up).
    var isCommitting: Bool { thread.withLock { $0.state.committing } }

    /// Records waiting for the next commit (for tests).
    var pendingCount: Int { thread.withLock { $0.state.pending.count } }

    /// Makes the next `count` commits fail after writing their rows, as a full disk would.
    func failNextCommits(_ count: Int) {
        injectedFailures.store(count, ordering: .releasing)
    }

    /// Makes the writer take its next batch (`isCommitting` turns true) and wait before writing
    /// it until `releaseHeldCommit()`, so that a test can queue more records behind a commit
    /// under way without racing a clock.
    func holdNextCommit() {
        thread.withLock { $0.state.holdingNextCommit = true }
    }

    func releaseHeldCommit() {
        thread.withLock { locked in
            locked.state.holdingNextCommit = false
            locked.broadcast()
        }
    }

    /// Commits what is pending and stops the writer. Later submissions are not written.
    public func close() {
        thread.withLock { locked in
            locked.state.stopping = true
            locked.broadcast()
        }
        thread.join()
        thread.withLock { locked in
            locked.state.running = false
            // The handler holds the channels, which hold the store: dropped, the store can go.
            locked.state.rollback = nil
            locked.broadcast()
        }
        // The directory is free once nothing more is written: a store opened on it next (a
        // restart in the same process) must not wait for this object's last reference to go.
        let lock = lockDescriptor.exchange(-1, ordering: .acquiringAndReleasing)
        guard lock >= 0 else { return }
        // Unlocked before the close: a process forked at that moment (a test spawning a server,
        // between its fork and its exec) holds a copy of the descriptor, and a lock that only the
        // last close released would stay held until that copy went.
        flock(lock, LOCK_UN)
        Glibc.close(lock)
    }

    private func run() {
        while let batch = nextBatch() {
            let sequences = batch.map(\.sequence)
            do {
                try writer.commit(batch.map(\.record), failing: takeInjectedFailure())
                let due = thread.withLock { locked in
                    locked.state.committed = sequences.last!
                    locked.state.committing = false
                    locked.broadcast()
                    return locked.state.takeCallbacks(sequences)
                }
                for callback in due { callback(true) }
            } catch {
                StoreFiles.writeError("overlayd: storing failed: \(error)\n")
                rollBack(batch)
            }
        }
    }

    /// A commit failed: nothing of it is on disk. Every channel it touched goes back to what the
    /// database holds, with every change of theirs not yet committed (`discardPending`); then
    /// the writers of all those changes are answered false, and the writer waits a moment.
    private func rollBack(_ batch: [(sequence: UInt64, record: ChannelRecord)]) {
        writer.forgetReservations()
        let rollback = thread.withLock { $0.state.rollback }
        var channels: [String] = []
        for entry in batch where !channels.contains(entry.record.name) { channels.append(entry.record.name) }
        if let rollback {
            for channel in channels {
                rollback(channel) { () throws(StoreError) in try writer.loadChannel(channel) }
            }
        }
        // The batch fails only once its channels are rolled back: a writer that asks about its
        // sequence in between waits, so that no 503 is answered before the state it left is gone.
        let due = thread.withLock { locked in
            locked.state.committed = batch.last!.sequence
            for entry in batch { locked.state.fail(entry.sequence) }
            defer { locked.state.unanswered = [] }
            locked.state.committing = false
            locked.broadcast()
            return locked.state.takeCallbacks(locked.state.unanswered)
        }
        for callback in due { callback(false) }
        let until = MonotonicClock.nanoseconds() + OverlayStore.backoffNanoseconds
        thread.withLock { locked in
            while !locked.state.stopping && MonotonicClock.nanoseconds() < until { locked.wait(untilMonotonic: until) }
        }
    }

    private func takeInjectedFailure() -> Bool {
        var count = injectedFailures.load(ordering: .acquiring)
        while count > 0 {
            let (exchanged, original) = injectedFailures.compareExchange(
                expected: count, desired: count - 1, ordering: .acquiringAndReleasing)
            if exchanged { return true }
            count = original
        }
        return false
    }

    /// Waits for records to commit; nil once the store is closing and none are left.
    private func nextBatch() -> [(sequence: UInt64, record: ChannelRecord)]? {
        thread.withLock { locked in
            while locked.state.pending.isEmpty && !locked.state.stopping { locked.wait() }
            guard !locked.state.pending.isEmpty else { return nil }
            locked.state.committing = true
            let batch = locked.state.pending
            locked.state.pending = []
            // A test's hold: the batch is taken (`isCommitting`), records behind it queue up.
            while locked.state.holdingNextCommit && !locked.state.stopping { locked.wait() }
            return batch
        }
    }
}
