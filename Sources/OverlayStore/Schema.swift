import OverlayEngine

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
            Column("rotation_target", \.state.rotationTarget),
            Column("now_ns", \.state.now),
            Column("phase", \.state.phase),
            Column("transition_property", \.transitionProperty),
            Column("transition_from", \.transitionFrom),
            Column("transition_to", \.transitionTo),
            Column("transition_start_ns", \.transitionStart),
            Column("transition_length_ns", \.transitionLength),
            Column("current_id", \.state.currentID),
            Column("head_order", \.state.headOrder),
            Column("tail_order", \.state.tailOrder),
            Column("status_bar_style", \.statusBarStyle),
            Column("status_bar_hidden", \.statusBarHidden),
            Column("status_bar_animation", \.statusBarAnimation),
            Column("status_bar_hidden_by", \.statusBarHiddenBy),
            Column("status_bar_root", \.statusBarRoot),
            Column("status_bar_style_from", \.state.statusBarTransient.styleFrom),
            Column("status_bar_hidden_from", \.state.statusBarTransient.hiddenFrom),
            Column("status_bar_motion_animation", \.statusBarMotionAnimation),
            Column("status_bar_motion_from", \.statusBarMotionFrom),
            Column("status_bar_motion_to", \.statusBarMotionTo),
            Column("status_bar_motion_start_ns", \.statusBarMotionStart),
            Column("status_bar_motion_length_ns", \.statusBarMotionLength),
            Column("presentation", \.state.presentation),
            Column("transition_bounces", \.transitionBounces),
            Column("held_since_ns", \.state.heldSince),
            Column("wall_clock_epoch_ns", \.state.wallClockEpoch),
            Column("rise_text", \.riseText),
            Column("rise_resting_y", \.riseRestingY),
            Column("rise_height", \.riseHeight),
            Column("announcement_version", \.state.announcementVersion),
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

    /// A column of the message a row holds, read and set without a key path (see `Column`).
    private static func message<Value: ColumnValue>(
        _ name: String, _ get: @escaping @Sendable (Message) -> Value,
        _ set: @escaping @Sendable (inout Message, Value) -> Void
    ) -> Column<MessageRow> {
        Column(name, get: { get($0.message) }, set: { set(&$0.message, $1) })
    }

    /// A message's columns, in `messages` and in `leaving`.
    private static let messageColumns: [Column<MessageRow>] = [
        Column("channel", get: { $0.channel }, set: { $0.channel = $1 }),
        message("id", { $0.id }, { $0.id = $1 }),
        message("kind", { $0.kind }, { $0.kind = $1 }),
        message("text", { $0.text }, { $0.text = $1 }),
        message("subtitle", { $0.subtitle }, { $0.subtitle = $1 }),
        message("icon", { $0.icon }, { $0.icon = $1 }),
        message("progress", { $0.progress }, { $0.progress = $1 }),
        message("duration_ns", { $0.duration }, { $0.duration = $1 }),
        message("immediate", { $0.immediate }, { $0.immediate = $1 }),
        message("key", { $0.key }, { $0.key = $1 }),
        message("state", { $0.state }, { $0.state = $1 }),
        message("posted_at_ns", { $0.postedAt }, { $0.postedAt = $1 }),
        message("ended_at_ns", { $0.endedAt }, { $0.endedAt = $1 }),
        message("shown_at_ns", { $0.shownAt }, { $0.shownAt = $1 }),
        message("display_started_at_ns", { $0.displayStartedAt }, { $0.displayStartedAt = $1 }),
        message("deadline_ns", { $0.deadline }, { $0.deadline = $1 }),
        message("expires_at_deadline", { $0.expiresAtDeadline }, { $0.expiresAtDeadline = $1 }),
        message("queue_order", { $0.queueOrder }, { $0.queueOrder = $1 }),
        // After posted_at_ns: a join time equal to the post time is not kept apart (`Message.joinedAt`).
        message("scheduled_for_ns", { $0.scheduledFor }, { $0.scheduledFor = $1 }),
        message("joined_at_ns", { $0.joinedAt }, { $0.joinedAt = $1 }),
        message("expires_ns", { $0.expires }, { $0.expires = $1 }),
        message("expires_at_ns", { $0.expiresAt }, { $0.expiresAt = $1 }),
        message("priority", { $0.priority }, { $0.priority = $1 }),
        message("requested_priority", { $0.requestedPriority }, { $0.requestedPriority = $1 }),
        message("has_been_shown", { $0.hasBeenShown }, { $0.hasBeenShown = $1 }),
        message("click", { $0.click }, { $0.click = $1 }),
        message("actions", { $0.actions }, { $0.actions = $1 }),
        message("accessibility_label", { $0.accessibilityLabel }, { $0.accessibilityLabel = $1 }),
        message("taps", { $0.taps }, { $0.taps = $1 }),
    ]

    static let messages = Table<MessageRow>(
        name: "messages", key: ["channel", "id"],
        columns: messageColumns + [
            // A message keeps the place in the history it got when it ended.
            Column(
                "history_seq", \.historySequence,
                onConflict: """
                    CASE WHEN excluded.history_seq IS NULL THEN NULL
                    ELSE coalesce(messages.history_seq, excluded.history_seq) END
                    """)
        ])

    /// The message an overlay hiding beside the status bar draws, one row per channel while it
    /// hides: a copy taken when the hide started, which the message's own row may no longer equal.
    static let leaving = Table<MessageRow>(name: "leaving_messages", key: ["channel"], columns: messageColumns)

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
            // Everything of the engine, so that a commit that fails is undone by reading back
            // what the database holds (docs/BEHAVIOUR.md, "Durability"). `orientation` is from
            // now on the window's; a rotation's target, which the older versions kept there, is
            // its own column.
            3,
            """
            ALTER TABLE channels ADD COLUMN rotation_target TEXT;
            ALTER TABLE channels ADD COLUMN now_ns INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE channels ADD COLUMN phase TEXT NOT NULL DEFAULT 'hidden';
            ALTER TABLE channels ADD COLUMN transition_property TEXT;
            ALTER TABLE channels ADD COLUMN transition_from REAL;
            ALTER TABLE channels ADD COLUMN transition_to REAL;
            ALTER TABLE channels ADD COLUMN transition_start_ns INTEGER;
            ALTER TABLE channels ADD COLUMN transition_length_ns INTEGER;
            ALTER TABLE channels ADD COLUMN current_id INTEGER;
            ALTER TABLE channels ADD COLUMN head_order INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE channels ADD COLUMN tail_order INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE messages ADD COLUMN deadline_ns INTEGER;
            ALTER TABLE messages ADD COLUMN expires_at_deadline INTEGER NOT NULL DEFAULT 0;
            """
        ),
        (
            // The status bar under the overlay: its state at rest and the controller hierarchy
            // that decides it with `controllers` appearance (what a restart restores), then its
            // hide or show under way, who decided it, and the message an overlay hiding beside it
            // draws (what a rollback restores as well).
            4,
            """
            ALTER TABLE channels ADD COLUMN status_bar_style TEXT;
            ALTER TABLE channels ADD COLUMN status_bar_hidden INTEGER;
            ALTER TABLE channels ADD COLUMN status_bar_animation TEXT;
            ALTER TABLE channels ADD COLUMN status_bar_hidden_by TEXT;
            ALTER TABLE channels ADD COLUMN status_bar_root TEXT;
            ALTER TABLE channels ADD COLUMN status_bar_style_from TEXT NOT NULL DEFAULT 'application';
            ALTER TABLE channels ADD COLUMN status_bar_hidden_from TEXT NOT NULL DEFAULT 'application';
            ALTER TABLE channels ADD COLUMN status_bar_motion_animation TEXT;
            ALTER TABLE channels ADD COLUMN status_bar_motion_from REAL;
            ALTER TABLE channels ADD COLUMN status_bar_motion_to REAL;
            ALTER TABLE channels ADD COLUMN status_bar_motion_start_ns INTEGER;
            ALTER TABLE channels ADD COLUMN status_bar_motion_length_ns INTEGER;
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
            CREATE TABLE leaving_messages (
              channel TEXT PRIMARY KEY,
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
              shown_at_ns INTEGER,
              display_started_at_ns INTEGER,
              deadline_ns INTEGER,
              expires_at_deadline INTEGER NOT NULL,
              queue_order INTEGER NOT NULL
            ) WITHOUT ROWID;
            """
        ),
        (
            // The devices of today (docs/MODEL.md, "Presentations"): a channel's presentation
            // (null in a row from before: the configured one), whether its show bounces, a hold
            // under way (what a rollback restores; a restart releases it), and a message's
            // subtitle and icon, in both tables that hold messages.
            5,
            """
            ALTER TABLE channels ADD COLUMN presentation TEXT;
            ALTER TABLE channels ADD COLUMN transition_bounces INTEGER;
            ALTER TABLE channels ADD COLUMN held_since_ns INTEGER;
            ALTER TABLE messages ADD COLUMN subtitle TEXT;
            ALTER TABLE messages ADD COLUMN icon TEXT;
            ALTER TABLE leaving_messages ADD COLUMN subtitle TEXT;
            ALTER TABLE leaving_messages ADD COLUMN icon TEXT;
            """
        ),
        (
            // Scheduled, expiring and prioritised messages (docs/MODEL.md §11): a message's time
            // to join the queue, when it joined, its expiry, its priority and the one its sender
            // gave (null: its kind's, which a restart takes again from the configuration), whether it has been shown (its expiry then no longer applies); and
            // the wall-clock time at the channel clock's zero, which moves stored times onto the
            // clock of the next run. A row from before is an unscheduled message that never expires.
            6,
            """
            ALTER TABLE channels ADD COLUMN wall_clock_epoch_ns INTEGER;
            ALTER TABLE messages ADD COLUMN scheduled_for_ns INTEGER;
            ALTER TABLE messages ADD COLUMN joined_at_ns INTEGER;
            ALTER TABLE messages ADD COLUMN expires_ns INTEGER;
            ALTER TABLE messages ADD COLUMN expires_at_ns INTEGER;
            ALTER TABLE messages ADD COLUMN priority INTEGER NOT NULL DEFAULT 3;
            ALTER TABLE messages ADD COLUMN requested_priority INTEGER;
            ALTER TABLE messages ADD COLUMN has_been_shown INTEGER NOT NULL DEFAULT 0;
            ALTER TABLE leaving_messages ADD COLUMN scheduled_for_ns INTEGER;
            ALTER TABLE leaving_messages ADD COLUMN joined_at_ns INTEGER;
            ALTER TABLE leaving_messages ADD COLUMN expires_ns INTEGER;
            ALTER TABLE leaving_messages ADD COLUMN expires_at_ns INTEGER;
            ALTER TABLE leaving_messages ADD COLUMN priority INTEGER NOT NULL DEFAULT 3;
            ALTER TABLE leaving_messages ADD COLUMN requested_priority INTEGER;
            ALTER TABLE leaving_messages ADD COLUMN has_been_shown INTEGER NOT NULL DEFAULT 0;
            """
        ),
        (
            // Tokens made through the API (docs/ACCESS.md): the secret's SHA-256 in hex and its
            // first 8 characters, never the secret; grants as the JSON the API takes; times in
            // Unix seconds. A revoked token keeps its row, so that its use is told apart from an
            // unknown secret's.
            7,
            """
            CREATE TABLE tokens (
              id TEXT PRIMARY KEY,
              hash TEXT NOT NULL UNIQUE,
              prefix TEXT NOT NULL,
              label TEXT NOT NULL,
              grants TEXT NOT NULL,
              admin INTEGER NOT NULL,
              expires_at INTEGER,
              created_at INTEGER NOT NULL,
              last_used_at INTEGER,
              revoked_at INTEGER
            ) WITHOUT ROWID;
            """
        ),
        (
            // The outgoing label of a rise under way (docs/MODEL.md §14): what a rollback
            // restores; a restart shows the message again from the start.
            8,
            """
            ALTER TABLE channels ADD COLUMN rise_text TEXT;
            ALTER TABLE channels ADD COLUMN rise_resting_y REAL;
            ALTER TABLE channels ADD COLUMN rise_height REAL;
            """
        ),
        (
            // The reader's side (docs/MODEL.md §14): what a tap on a message opens, its actions
            // and its last taps (JSON arrays, null when empty; a tap's time in nanoseconds), the
            // label VoiceOver reads instead of its words, in both tables that hold messages; and
            // the version at which the channel's announcement last changed (null in a row from
            // before: a restart takes its own version).
            9,
            """
            ALTER TABLE channels ADD COLUMN announcement_version INTEGER;
            ALTER TABLE messages ADD COLUMN click TEXT;
            ALTER TABLE messages ADD COLUMN actions TEXT;
            ALTER TABLE messages ADD COLUMN accessibility_label TEXT;
            ALTER TABLE messages ADD COLUMN taps TEXT;
            ALTER TABLE leaving_messages ADD COLUMN click TEXT;
            ALTER TABLE leaving_messages ADD COLUMN actions TEXT;
            ALTER TABLE leaving_messages ADD COLUMN accessibility_label TEXT;
            ALTER TABLE leaving_messages ADD COLUMN taps TEXT;
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
