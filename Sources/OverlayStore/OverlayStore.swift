import OverlayEngine

#if canImport(Glibc)
    import Glibc
#endif

/// One channel's state to write: the channel's row and the messages whose records changed.
public struct ChannelRecord: Sendable {
    public var name: String
    public var version: UInt64
    public var nextID: Int64
    public var orientation: Orientation
    public var device: String
    /// Messages to insert or update.
    public var messages: [Message]
    /// Messages gone from the history, to delete.
    public var forgotten: [Int64]

    public init(
        name: String, version: UInt64, nextID: Int64, orientation: Orientation, device: String, messages: [Message],
        forgotten: [Int64]
    ) {
        self.name = name
        self.version = version
        self.nextID = nextID
        self.orientation = orientation
        self.device = device
        self.messages = messages
        self.forgotten = forgotten
    }
}

/// A channel read back at start-up.
public struct LoadedChannel: Sendable {
    public var name: String
    public var device: String
    public var state: RestoredState
}

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
public final class OverlayStore: @unchecked Sendable {
    public static let fileName = "overlayd.sqlite"
    /// Versions reserved ahead of the current one.
    static let versionReserve: UInt64 = 100_000
    /// Ids reserved ahead of the next one.
    static let idReserve: Int64 = 1_000

    public let path: String
    private let lockDescriptor: Int32
    private let database: Database
    private let upsertChannel: Statement
    private let upsertMessage: Statement
    private let deleteMessage: Statement

    // Guarded by `mutex`.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var pending: [(sequence: UInt64, record: ChannelRecord)] = []
    private var submitted: UInt64 = 0
    private var committed: UInt64 = 0
    private var callbacks: [(sequence: UInt64, completion: @Sendable (Bool) -> Void)] = []
    /// The sequences of the latest commits that failed; their callers are told false.
    private var failed: [ClosedRange<UInt64>] = []
    private var stopping = false
    private var thread = pthread_t()
    private var threadStarted = false

    // Only the writer thread touches these after start-up.
    private var reservedVersions: [String: UInt64] = [:]
    private var reservedIDs: [String: Int64] = [:]
    private var historySequence: Int64 = 0

    /// Opens (creating if needed) the store in `directory`, checks it, and brings its schema up to
    /// date. A file that is not a readable overlayd database is an error, never replaced.
    public init(directory: String) throws(StoreError) {
        try OverlayStore.makeDirectory(directory)
        let folder = directory.hasSuffix("/") ? directory : directory + "/"
        path = folder + OverlayStore.fileName
        // One process owns the data directory: a second one fails here instead of interleaving
        // its writes. A lock file rather than SQLite's exclusive mode, so that `sqlite3 .backup`
        // can still read the database while overlayd runs.
        let lock = try OverlayStore.lock(folder + "overlayd.lock")
        lockDescriptor = lock
        var opened = false
        defer { if !opened { Glibc.close(lock) } }
        database = try Database(path: path)
        do {
            // A backup reading the database may hold it for a moment: wait rather than fail.
            try database.execute("PRAGMA busy_timeout = 5000")
            try database.execute("PRAGMA journal_mode = WAL")
            try database.execute("PRAGMA synchronous = FULL")
        } catch {
            throw StoreError("\(path) cannot be used: \(error)")
        }
        try OverlayStore.checkIntegrity(database)
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
        upsertChannel = try database.prepare(
            """
            INSERT INTO channels (name, version, version_reserved, next_id, next_id_reserved, orientation, device)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7)
            ON CONFLICT(name) DO UPDATE SET version = excluded.version,
              version_reserved = max(channels.version_reserved, excluded.version_reserved),
              next_id = excluded.next_id, next_id_reserved = max(channels.next_id_reserved, excluded.next_id_reserved),
              orientation = excluded.orientation, device = excluded.device
            """)
        upsertMessage = try database.prepare(
            """
            INSERT INTO messages (channel, id, kind, text, progress, duration_ns, immediate, key, state,
              posted_at_ns, ended_at_ns, queue_order, history_seq)
            VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13)
            ON CONFLICT(channel, id) DO UPDATE SET kind = excluded.kind, text = excluded.text,
              progress = excluded.progress, duration_ns = excluded.duration_ns, state = excluded.state,
              ended_at_ns = excluded.ended_at_ns, queue_order = excluded.queue_order,
              history_seq = CASE WHEN excluded.history_seq IS NULL THEN NULL
                                 ELSE coalesce(messages.history_seq, excluded.history_seq) END
            """)
        deleteMessage = try database.prepare("DELETE FROM messages WHERE channel = ?1 AND id = ?2")
        opened = true
        pthread_mutex_init(mutex, nil)
        pthread_cond_init(condition, nil)
    }

    deinit {
        close()
        Glibc.close(lockDescriptor)
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    // MARK: - Start-up

    /// Every stored channel, with its reservations applied: the version and next id a restarted
    /// channel continues from are beyond anything served before.
    public func load(devices: [String: DeviceProfile]) throws(StoreError) -> [LoadedChannel] {
        var loaded: [LoadedChannel] = []
        let channels = try database.prepare(
            "SELECT name, version_reserved, next_id_reserved, orientation, device FROM channels ORDER BY name")
        let live = try database.prepare(
            """
            SELECT id, kind, text, progress, duration_ns, immediate, key, state, posted_at_ns, ended_at_ns,
              queue_order FROM messages WHERE channel = ?1 AND history_seq IS NULL ORDER BY queue_order
            """)
        let ended = try database.prepare(
            """
            SELECT id, kind, text, progress, duration_ns, immediate, key, state, posted_at_ns, ended_at_ns,
              queue_order, history_seq FROM messages WHERE channel = ?1 AND history_seq IS NOT NULL
            ORDER BY history_seq
            """)
        while try channels.step() {
            let name = channels.string(0)
            let version = UInt64(max(0, channels.int(1)))
            let nextID = max(1, channels.int(2))
            guard let orientation = Orientation(rawValue: channels.string(3)) else {
                throw StoreError("\(path): channel \(name) has an unknown orientation \(channels.string(3))")
            }
            let device = channels.string(4)
            live.bind(1, name)
            let liveMessages = try OverlayStore.messages(from: live, path: path)
            ended.bind(1, name)
            let history = try OverlayStore.messages(from: ended, path: path)
            live.reset()
            ended.reset()
            reservedVersions[name] = version
            reservedIDs[name] = nextID
            loaded.append(
                LoadedChannel(
                    name: name, device: device,
                    state: RestoredState(
                        version: version, nextID: nextID, orientation: orientation, device: devices[device],
                        live: liveMessages, history: history)))
        }
        let maximum = try database.prepare("SELECT coalesce(max(history_seq), 0) FROM messages")
        if try maximum.step() { historySequence = maximum.int(0) }
        return loaded
    }

    private static func messages(from statement: Statement, path: String) throws(StoreError) -> [Message] {
        var messages: [Message] = []
        while try statement.step() {
            let id = statement.int(0)
            guard let kind = MessageKind(rawValue: statement.string(1)),
                let state = MessageState(rawValue: statement.string(7))
            else { throw StoreError("\(path): message \(id) has an unknown kind or state") }
            messages.append(
                Message.stored(
                    id: id, kind: kind, text: statement.string(2),
                    progress: statement.isNull(3) ? nil : statement.double(3),
                    duration: statement.isNull(4) ? nil : Interval(nanoseconds: statement.int(4)),
                    immediate: statement.int(5) != 0, key: statement.isNull(6) ? nil : statement.string(6),
                    state: state, postedAt: Instant(nanoseconds: statement.int(8)),
                    endedAt: statement.isNull(9) ? nil : Instant(nanoseconds: statement.int(9)),
                    queueOrder: statement.int(10)))
        }
        return messages
    }

    /// Starts the writer thread; records submitted before are kept.
    public func start() {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        guard !threadStarted else { return }
        threadStarted = true
        let context = Unmanaged.passRetained(self).toOpaque()
        pthread_create(
            &thread, nil,
            { context in
                let store = Unmanaged<OverlayStore>.fromOpaque(context!).takeRetainedValue()
                store.run()
                return nil
            }, context)
    }

    // MARK: - Writing

    /// Queues `record` for the next commit and returns its sequence number.
    public func submit(_ record: ChannelRecord) -> UInt64 {
        pthread_mutex_lock(mutex)
        submitted += 1
        let sequence = submitted
        pending.append((sequence, record))
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
        return sequence
    }

    /// Calls `completion` (on the writer thread, or at once) with true once `sequence` is on disk,
    /// false if its commit failed.
    public func whenDurable(_ sequence: UInt64, _ completion: @escaping @Sendable (Bool) -> Void) {
        pthread_mutex_lock(mutex)
        if sequence <= committed {
            let durable = !isFailed(sequence)
            pthread_mutex_unlock(mutex)
            completion(durable)
            return
        }
        callbacks.append((sequence, completion))
        pthread_mutex_unlock(mutex)
    }

    /// Blocks until `sequence` is on disk; false if its commit failed.
    public func waitUntilDurable(_ sequence: UInt64) -> Bool {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while committed < sequence && threadStarted {
            pthread_cond_wait(condition, mutex)
        }
        return !isFailed(sequence)
    }

    /// Blocks until everything submitted so far is committed.
    public func flush() {
        pthread_mutex_lock(mutex)
        let target = submitted
        pthread_mutex_unlock(mutex)
        _ = waitUntilDurable(target)
    }

    /// Commits what is pending and stops the writer. Later submissions are not written.
    public func close() {
        pthread_mutex_lock(mutex)
        let wasRunning = threadStarted && !stopping
        stopping = true
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
        if wasRunning { pthread_join(thread, nil) }
    }

    private func isFailed(_ sequence: UInt64) -> Bool { failed.contains { $0.contains(sequence) } }

    private func run() {
        pthread_mutex_lock(mutex)
        while true {
            while pending.isEmpty && !stopping {
                pthread_cond_wait(condition, mutex)
            }
            if pending.isEmpty && stopping { break }
            let batch = pending
            pending = []
            pthread_mutex_unlock(mutex)

            let succeeded: Bool
            do {
                try commit(batch.map(\.record))
                succeeded = true
            } catch {
                writeError("overlayd: storing failed: \(error)\n")
                succeeded = false
            }

            pthread_mutex_lock(mutex)
            let last = batch.last!.sequence
            if !succeeded {
                // A failed commit is not retried: its changes stay live in memory, and its writers
                // are told (503) that they were not stored. The latest failures are remembered for
                // a writer that asks after the fact.
                failed.append(batch[0].sequence...last)
                if failed.count > 64 { failed.removeFirst() }
            }
            committed = last
            // Every callback up to `last` belongs to this batch: earlier ones ran after theirs.
            let due = callbacks.filter { $0.sequence <= last }
            callbacks.removeAll { $0.sequence <= last }
            pthread_cond_broadcast(condition)
            pthread_mutex_unlock(mutex)
            for callback in due { callback.completion(succeeded) }
            pthread_mutex_lock(mutex)
        }
        pthread_mutex_unlock(mutex)
    }

    private func commit(_ records: [ChannelRecord]) throws(StoreError) {
        try database.execute("BEGIN IMMEDIATE")
        do {
            for record in records { try write(record) }
            try database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            throw error
        }
    }

    private func write(_ record: ChannelRecord) throws(StoreError) {
        var versionReserved = reservedVersions[record.name] ?? 0
        if record.version + OverlayStore.versionReserve / 2 > versionReserved {
            versionReserved = record.version + OverlayStore.versionReserve
            reservedVersions[record.name] = versionReserved
        }
        var idReserved = reservedIDs[record.name] ?? 0
        if record.nextID + OverlayStore.idReserve / 2 > idReserved {
            idReserved = record.nextID + OverlayStore.idReserve
            reservedIDs[record.name] = idReserved
        }
        upsertChannel.bind(1, record.name)
        upsertChannel.bind(2, Int64(record.version))
        upsertChannel.bind(3, Int64(versionReserved))
        upsertChannel.bind(4, record.nextID)
        upsertChannel.bind(5, idReserved)
        upsertChannel.bind(6, record.orientation.rawValue)
        upsertChannel.bind(7, record.device)
        try upsertChannel.run()
        for message in record.messages {
            upsertMessage.bind(1, record.name)
            upsertMessage.bind(2, message.id)
            upsertMessage.bind(3, message.kind.rawValue)
            upsertMessage.bind(4, message.text)
            upsertMessage.bind(5, message.progress)
            upsertMessage.bind(6, message.duration?.nanoseconds)
            upsertMessage.bind(7, Int64(message.immediate ? 1 : 0))
            upsertMessage.bind(8, message.key)
            upsertMessage.bind(9, message.state.rawValue)
            upsertMessage.bind(10, message.postedAt.nanoseconds)
            upsertMessage.bind(11, message.endedAt?.nanoseconds)
            upsertMessage.bind(12, message.queueOrder)
            if message.state.hasEnded {
                historySequence += 1
                upsertMessage.bind(13, historySequence)
            } else {
                upsertMessage.bind(13, Int64?.none)
            }
            try upsertMessage.run()
        }
        for id in record.forgotten {
            deleteMessage.bind(1, record.name)
            deleteMessage.bind(2, id)
            try deleteMessage.run()
        }
    }

    // MARK: - Files

    private static func checkIntegrity(_ database: Database) throws(StoreError) {
        let check = try database.prepare("PRAGMA quick_check")
        guard try check.step() else { throw StoreError("\(database.path): the integrity check returned nothing") }
        let result = check.string(0)
        guard result == "ok" else {
            throw StoreError("\(database.path) is damaged (\(result)); restore it from a backup or move it away")
        }
    }

    /// Holds an exclusive `flock` on `path` for the life of the process (released when it exits,
    /// however it exits).
    private static func lock(_ path: String) throws(StoreError) -> Int32 {
        let descriptor = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else {
            throw StoreError("cannot open \(path): \(String(cString: strerror(errno)))")
        }
        guard flock(descriptor, LOCK_EX | LOCK_NB) == 0 else {
            Glibc.close(descriptor)
            throw StoreError("the data directory is in use by another overlayd (\(path) is locked)")
        }
        return descriptor
    }

    /// `mkdir -p`.
    static func makeDirectory(_ path: String) throws(StoreError) {
        var prefix = path.hasPrefix("/") ? "/" : ""
        for component in path.split(separator: "/") {
            prefix += component + "/"
            if mkdir(prefix, 0o755) != 0 && errno != EEXIST {
                throw StoreError("cannot create the data directory \(path): \(String(cString: strerror(errno)))")
            }
        }
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFDIR else {
            throw StoreError("the data directory \(path) is not a directory")
        }
    }

    private func writeError(_ text: String) {
        var bytes = Array(text.utf8)
        _ = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress, $0.count) }
    }
}

/// The schema and the steps that bring an older database up to date, one transaction each.
enum Schema {
    static let migrations: [(version: Int64, sql: String)] = [
        (
            1,
            """
            CREATE TABLE channels (
              name TEXT PRIMARY KEY,
              version INTEGER NOT NULL,
              version_reserved INTEGER NOT NULL,
              next_id INTEGER NOT NULL,
              next_id_reserved INTEGER NOT NULL,
              orientation TEXT NOT NULL,
              device TEXT NOT NULL
            ) WITHOUT ROWID;
            CREATE TABLE messages (
              channel TEXT NOT NULL,
              id INTEGER NOT NULL,
              kind TEXT NOT NULL,
              text TEXT NOT NULL,
              progress REAL,
              duration_ns INTEGER,
              immediate INTEGER NOT NULL,
              key TEXT,
              state TEXT NOT NULL,
              posted_at_ns INTEGER NOT NULL,
              ended_at_ns INTEGER,
              queue_order INTEGER NOT NULL,
              history_seq INTEGER,
              PRIMARY KEY (channel, id)
            ) WITHOUT ROWID;
            """
        )
    ]

    static var latest: Int64 { migrations.last!.version }

    static func migrate(_ database: Database) throws(StoreError) {
        try database.execute("CREATE TABLE IF NOT EXISTS schema_version (version INTEGER NOT NULL)")
        let read = try database.prepare("SELECT max(version) FROM schema_version")
        var current: Int64 = 0
        if try read.step(), !read.isNull(0) { current = read.int(0) }
        guard current <= latest else {
            throw StoreError(
                "\(database.path) has schema version \(current), newer than this overlayd knows (\(latest))")
        }
        for migration in migrations where migration.version > current {
            try database.execute("BEGIN IMMEDIATE")
            do {
                try database.execute(migration.sql)
                try database.execute("DELETE FROM schema_version")
                try database.execute("INSERT INTO schema_version (version) VALUES (\(migration.version))")
                try database.execute("COMMIT")
            } catch {
                try? database.execute("ROLLBACK")
                throw StoreError("migrating \(database.path) to schema version \(migration.version): \(error)")
            }
        }
    }
}
