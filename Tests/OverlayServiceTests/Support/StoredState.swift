import OverlayService
import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayStore

// What the durability suites start a store from and compare it against: the first schema (and a
// store of any later one), a record written durably, and what of a message a restart must keep.

enum StoredState {
    /// The schema as the first overlayd that stored anything created it, verbatim: where each
    /// migration test starts.
    static let firstSchema = """
        CREATE TABLE schema_version (version INTEGER NOT NULL);
        INSERT INTO schema_version (version) VALUES (1);
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

    /// The store in `directory` as an overlayd of schema `version` left it: the first schema, the
    /// migrations up to `version`, then `rows` (SQL that inserts what it had stored).
    static func write(in directory: TemporaryDirectory, schema version: Int64, rows: String) throws {
        let database = try Database(path: directory.database)
        try database.execute(firstSchema)
        for migration in Schema.migrations where migration.version > 1 && migration.version <= version {
            try database.execute(migration.sql)
        }
        try database.execute("UPDATE schema_version SET version = \(version);\n" + rows)
    }

    /// The schema version the store in `directory` records.
    static func schemaVersion(in directory: TemporaryDirectory) throws -> Int64? {
        let database = try Database(path: directory.database)
        return try withExtendedLifetime(database) {
            let version = try database.prepare("SELECT version FROM schema_version")
            return try version.step() ? version.int(0) : nil
        }
    }

    /// `record` written durably by a store opened on `directory` and closed again, after it
    /// loaded what was there (as overlayd does at start-up) when `loadingFirst` is set.
    static func submit(
        _ record: ChannelRecord, in directory: TemporaryDirectory, loadingFirst: Bool = false,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let store = try OverlayStore(directory: directory.path)
        defer { store.close() }
        if loadingFirst { _ = try store.load() }
        store.start()
        #expect(store.waitUntilDurable(store.submit(record)), sourceLocation: sourceLocation)
    }

    /// The fields of `message` that a restart keeps, as `name=value` for comparing.
    static func kept(_ message: JSONValue) -> [String] {
        ["id", "kind", "text", "progress", "duration", "key", "postedAt"].map { "\($0)=\(message[$0] ?? .null)" }
    }
}
