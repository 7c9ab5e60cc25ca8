import OverlayEngine
import Platform

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
    private let lockDescriptor: Int32
    private let writer: StoreWriter
    private let thread = ConditionThread(Queue())

    /// What the writer thread and the submitters share, under the thread's lock.
    private struct Queue: Sendable {
        var pending: [(sequence: UInt64, record: ChannelRecord)] = []
        var submitted: UInt64 = 0
        var committed: UInt64 = 0
        var callbacks: [(sequence: UInt64, completion: @Sendable (Bool) -> Void)] = []
        /// The sequences of the latest commits that failed; their callers are told false.
        var failed: [ClosedRange<UInt64>] = []
        var running = false
        var stopping = false

        func isFailed(_ sequence: UInt64) -> Bool { failed.contains { $0.contains(sequence) } }
    }

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
        lockDescriptor = lock
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
        opened = true
    }

    deinit {
        close()
        Glibc.close(lockDescriptor)
    }

    // MARK: - Start-up

    /// Every stored channel, with its reservations applied: the version and next id a restarted
    /// channel continues from are beyond anything served before. Call it before `start`.
    public func load() throws(StoreError) -> [LoadedChannel] {
        try writer.load()
    }

    /// Starts the writer thread; records submitted before are kept.
    public func start() {
        let starts = thread.withLock { locked in
            defer { locked.state.running = true }
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
            guard sequence > locked.state.committed else { return !locked.state.isFailed(sequence) }
            locked.state.callbacks.append((sequence, completion))
            return nil
        }
        if let resolved { completion(resolved) }
    }

    /// Blocks until `sequence` is on disk; false if its commit failed.
    public func waitUntilDurable(_ sequence: UInt64) -> Bool {
        thread.withLock { locked in
            while locked.state.committed < sequence && locked.state.running { locked.wait() }
            return !locked.state.isFailed(sequence)
        }
    }

    /// Blocks until everything submitted so far is committed.
    public func flush() {
        _ = waitUntilDurable(thread.withLock { $0.state.submitted })
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
            locked.broadcast()
        }
    }

    private func run() {
        while let batch = nextBatch() {
            let succeeded: Bool
            do {
                try writer.commit(batch.map(\.record))
                succeeded = true
            } catch {
                StoreFiles.writeError("overlayd: storing failed: \(error)\n")
                succeeded = false
            }
            let last = batch.last!.sequence
            let due = thread.withLock { locked in
                if !succeeded {
                    // A failed commit is not retried: its changes stay live in memory, and its
                    // writers are told (503) that they were not stored. The latest failures are
                    // remembered for a writer that asks after the fact.
                    locked.state.failed.append(batch[0].sequence...last)
                    if locked.state.failed.count > 64 { locked.state.failed.removeFirst() }
                }
                locked.state.committed = last
                // Every callback up to `last` belongs to this batch: earlier ones ran after theirs.
                let due = locked.state.callbacks.filter { $0.sequence <= last }
                locked.state.callbacks.removeAll { $0.sequence <= last }
                locked.broadcast()
                return due
            }
            for callback in due { callback.completion(succeeded) }
        }
    }

    /// Waits for records to commit; nil once the store is closing and none are left.
    private func nextBatch() -> [(sequence: UInt64, record: ChannelRecord)]? {
        thread.withLock { locked in
            while locked.state.pending.isEmpty && !locked.state.stopping { locked.wait() }
            guard !locked.state.pending.isEmpty else { return nil }
            defer { locked.state.pending = [] }
            return locked.state.pending
        }
    }
}
