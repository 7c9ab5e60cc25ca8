import OverlayService
import ServiceTestSupport

// What the durability suites compare a store against: the first schema, and what of a message
// a restart must keep.

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

    /// The fields of `message` that a restart keeps, as `name=value` for comparing.
    static func kept(_ message: JSONValue) -> [String] {
        ["id", "kind", "text", "progress", "duration", "key", "postedAt"].map { "\($0)=\(message[$0] ?? .null)" }
    }
}
