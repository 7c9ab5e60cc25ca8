import OverlayEngine

/// A channel's row: the engine's state, with the reservations that keep versions and ids from
/// repeating after a crash, and the status bar at rest (its controllers are rows of their own).
struct ChannelRow {
    var name: String
    var state: EngineState
    var versionReserved: UInt64
    var idReserved: Int64
    // The status bar's columns are null in a row stored before there was one: such a channel
    // starts with the configured launch state.
    var statusBarStyle: StatusBarStyle? = nil
    var statusBarHidden: Bool? = nil
    var statusBarAnimation: StatusBarAnimation? = nil
    var statusBarHiddenBy: StatusBarAnimation? = nil
    /// The hierarchy's root; null when no hierarchy was sent.
    var statusBarRoot: String? = nil

    /// The row of `state`, the status bar's columns included.
    init(name: String, state: EngineState, versionReserved: UInt64, idReserved: Int64) {
        self.name = name
        self.state = state
        self.versionReserved = versionReserved
        self.idReserved = idReserved
        if let bar = state.statusBar {
            statusBarStyle = bar.style
            statusBarHidden = bar.hidden
            statusBarAnimation = bar.animation
            statusBarHiddenBy = bar.hiddenBy
            statusBarRoot = bar.hierarchy?.root
        }
    }

    /// The status bar the columns hold, with `hierarchy` read from its rows; nil for a row from
    /// before the status bar was stored.
    func statusBar(hierarchy: ControllerHierarchy?) -> StatusBar.Record? {
        guard let statusBarStyle, let statusBarHidden, let statusBarAnimation, let statusBarHiddenBy else {
            return nil
        }
        return StatusBar.Record(
            style: statusBarStyle, hidden: statusBarHidden, animation: statusBarAnimation,
            hiddenBy: statusBarHiddenBy, hierarchy: hierarchy)
    }
}

/// One controller of a channel's status-bar hierarchy, at its place in the order it was sent.
struct ControllerRow {
    var channel: String
    var position: Int64
    var controller: ControllerHierarchy.Controller

    /// A row to read into: every field is set from its column.
    static var empty: ControllerRow {
        ControllerRow(channel: "", position: 0, controller: ControllerHierarchy.Controller(name: ""))
    }
}

/// A message's row. `historySequence` orders the ended ones in the order they ended; it is null
/// while the message is live.
struct MessageRow {
    var channel: String
    var message: Message
    var historySequence: Int64?

    /// A row to read into: every field is set from its column.
    static var empty: MessageRow {
        MessageRow(
            channel: "", message: Message(id: 0, kind: .info, text: "", state: .queued, postedAt: .zero),
            historySequence: nil)
    }
}

/// The tables, and the steps that bring an older database up to date, one transaction each.
///
/// Adding a stored field: a column in its table's list below and a migration that adds it.
/// `SchemaTests` check that the lists and the migrated database agree.
enum Schema {
    static let channels = Table<ChannelRow>(
        name: "channels", key: ["name"],
        columns: [
            Column("name", \.name),
            Column("version", \.state.version),
            Column(
                "version_reserved", \.versionReserved,
                onConflict: "max(channels.version_reserved, excluded.version_reserved)"),
            Column("next_id", \.state.nextID),
            Column(
                "next_id_reserved", \.idReserved,
                onConflict: "max(channels.next_id_reserved, excluded.next_id_reserved)"),
            Column("orientation", \.state.orientation),
            Column("device", \.state.device),
            Column("status_bar_style", \.statusBarStyle),
            Column("status_bar_hidden", \.statusBarHidden),
            Column("status_bar_animation", \.statusBarAnimation),
            Column("status_bar_hidden_by", \.statusBarHiddenBy),
            Column("status_bar_root", \.statusBarRoot),
        ])

    static let controllers = Table<ControllerRow>(
        name: "status_bar_controllers", key: ["channel", "position"],
        columns: [
            Column("channel", \.channel),
            Column("position", \.position),
            Column("name", \.controller.name),
            Column("preferred_style", \.controller.preferredStatusBarStyle),
            Column("prefers_hidden", \.controller.prefersStatusBarHidden),
            Column("update_animation", \.controller.preferredStatusBarUpdateAnimation),
            Column("child_for_style", \.controller.childForStatusBarStyle),
            Column("child_for_hidden", \.controller.childForStatusBarHidden),
            Column("presented", \.controller.presented),
            Column("full_screen", \.controller.fullScreen),
            Column("captures_appearance", \.controller.modalPresentationCapturesStatusBarAppearance),
        ])

    static let messages = Table<MessageRow>(
        name: "messages", key: ["channel", "id"],
        columns: [
            Column("channel", \.channel),
            Column("id", \.message.id),
            Column("kind", \.message.kind),
            Column("text", \.message.text),
            Column("progress", \.message.progress),
            Column("duration_ns", \.message.duration),
            Column("immediate", \.message.immediate),
            Column("key", \.message.key),
            Column("state", \.message.state),
            Column("posted_at_ns", \.message.postedAt),
            Column("ended_at_ns", \.message.endedAt),
            Column("shown_at_ns", \.message.shownAt),
            Column("display_started_at_ns", \.message.displayStartedAt),
            Column("queue_order", \.message.queueOrder),
            // A message keeps the place in the history it got when it ended.
            Column(
                "history_seq", \.historySequence,
                onConflict: """
                    CASE WHEN excluded.history_seq IS NULL THEN NULL
                    ELSE coalesce(messages.history_seq, excluded.history_seq) END
                    """),
        ])

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
        ),
        (
            // An ended message keeps the times of its display across a restart.
            2,
            """
            ALTER TABLE messages ADD COLUMN shown_at_ns INTEGER;
            ALTER TABLE messages ADD COLUMN display_started_at_ns INTEGER;
            """
        ),
        (
            // The status bar under the overlay: its state at rest, and the controller hierarchy
            // that decides it with `controllers` appearance.
            3,
            """
            ALTER TABLE channels ADD COLUMN status_bar_style TEXT;
            ALTER TABLE channels ADD COLUMN status_bar_hidden INTEGER;
            ALTER TABLE channels ADD COLUMN status_bar_animation TEXT;
            ALTER TABLE channels ADD COLUMN status_bar_hidden_by TEXT;
            ALTER TABLE channels ADD COLUMN status_bar_root TEXT;
            CREATE TABLE status_bar_controllers (
              channel TEXT NOT NULL,
              position INTEGER NOT NULL,
              name TEXT NOT NULL,
              preferred_style TEXT NOT NULL,
              prefers_hidden INTEGER NOT NULL,
              update_animation TEXT NOT NULL,
              child_for_style TEXT,
              child_for_hidden TEXT,
              presented TEXT,
              full_screen INTEGER NOT NULL,
              captures_appearance INTEGER NOT NULL,
              PRIMARY KEY (channel, position)
            ) WITHOUT ROWID;
            """
        ),
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
