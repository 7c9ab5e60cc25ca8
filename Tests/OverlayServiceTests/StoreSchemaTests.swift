import TestSupport
import Testing

@testable import OverlayEngine
@testable import OverlayStore

/// The store's column lists against the database its migrations make, and every stored field
/// through a write and a read: a field bound to the wrong column, or a column the list and the
/// schema disagree on, fails here.
@Suite("Store schema")
struct StoreSchemaTests {
    /// The columns of `table` in a database, as SQLite sees them.
    static func columns(of table: String, in database: Database) throws -> [String] {
        let info = try database.prepare("SELECT name FROM pragma_table_info('\(table)') ORDER BY cid")
        var names: [String] = []
        while try info.step() { names.append(info.string(0)) }
        return names
    }

    /// Statements name every column, so the order does not matter; each list and its table must
    /// hold the same columns.
    static func expectListsMatch(_ database: Database) throws {
        let tables: [(String, [String])] = [
            (Schema.channels.name, Schema.channels.columns.map(\.name)),
            (Schema.messages.name, Schema.messages.columns.map(\.name)),
            (Schema.controllers.name, Schema.controllers.columns.map(\.name)),
            (Schema.leaving.name, Schema.leaving.columns.map(\.name)),
        ]
        for (table, list) in tables {
            let columns = try StoreSchemaTests.columns(of: table, in: database)
            #expect(Set(columns) == Set(list), "\(table)")
            #expect(columns.count == list.count, "\(table)")
        }
    }

    @Test func listsMatchTheMigratedDatabase() throws {
        let directory = try TemporaryDirectory()
        let store = try OverlayStore(directory: directory.path)
        store.close()
        try StoreSchemaTests.expectListsMatch(try Database(path: directory.database))
    }

    /// A database of the first schema, as the first overlayd that stored anything created it,
    /// goes through every migration in one start-up and ends with the tables a new one has.
    @Test func firstSchemaMigratesToTheLatest() throws {
        let directory = try TemporaryDirectory()
        do {
            let database = try Database(path: directory.database)
            try database.execute(StoredState.firstSchema)
        }
        let store = try OverlayStore(directory: directory.path)
        #expect(try store.load().isEmpty)
        store.close()
        #expect(try StoredState.schemaVersion(in: directory) == Schema.latest)
        let database = try Database(path: directory.database)
        #expect(Schema.migrations.map(\.version) == Array(1...Schema.latest))
        try StoreSchemaTests.expectListsMatch(database)
    }

    /// The status bar's fields and every field of every controller, each with a value no other
    /// field of its type has, written and read back: each comes back in its own field.
    @Test func statusBarRoundTrips() throws {
        typealias Controller = ControllerHierarchy.Controller
        let directory = try TemporaryDirectory()
        var configuration = EngineConfiguration()
        configuration.statusBar.appearance = .controllers
        var engine = OverlayEngine(configuration: configuration)
        let hierarchy = try ControllerHierarchy.validated(
            root: "root",
            controllers: [
                Controller(
                    name: "root", preferredStatusBarStyle: .lightContent, prefersStatusBarHidden: false,
                    preferredStatusBarUpdateAnimation: .none, childForStatusBarStyle: "child",
                    childForStatusBarHidden: nil, presented: "modal", fullScreen: true,
                    modalPresentationCapturesStatusBarAppearance: false),
                Controller(
                    name: "child", preferredStatusBarStyle: .darkContent, prefersStatusBarHidden: true,
                    preferredStatusBarUpdateAnimation: .slide, childForStatusBarStyle: nil,
                    childForStatusBarHidden: "modal"),
                Controller(
                    name: "modal", preferredStatusBarStyle: .default, prefersStatusBarHidden: true,
                    preferredStatusBarUpdateAnimation: .fade, fullScreen: false,
                    modalPresentationCapturesStatusBarAppearance: true),
            ]
        ).get()
        let applied = engine.setControllers(hierarchy, at: .seconds(1))
        #expect(try applied.value.get().visibility == .hide)
        let record = ChannelRecord(name: "bar", engine: engine, changes: applied.changes)
        #expect(record.state.statusBar?.hierarchy == hierarchy)
        try StoredState.submit(record, in: directory)
        let store = try OverlayStore(directory: directory.path)
        let loaded = try #require(store.load().first)
        #expect(loaded.state.statusBar == engine.statusBar.record)
        #expect(loaded.state.statusBar?.hierarchy?.controllers == hierarchy.controllers)
        #expect(loaded.state.statusBar?.hiddenBy == .fade)
        #expect(loaded.state.statusBar?.style == .default)
    }

    /// What a rollback reads back besides: the bar's hide under way (every field of it), who
    /// decided style and hidden, and the message an overlay hiding beside the bar draws, changed
    /// in the queue since (so the two copies differ). A later record without them removes them.
    @Test func statusBarInFlightRoundTrips() throws {
        typealias Controller = ControllerHierarchy.Controller
        let directory = try TemporaryDirectory()
        var configuration = EngineConfiguration()
        configuration.statusBar.appearance = .controllers
        configuration.statusBar.animationDuration = .seconds(0.4)
        var engine = OverlayEngine(configuration: configuration)
        var changes = engine.post(MessageInput(kind: .progress, text: "drawn", progress: 0.25), at: .seconds(0)).changes
        changes.merge(engine.advance(to: .seconds(1)))
        let hierarchy = try ControllerHierarchy.validated(
            root: "tabs",
            controllers: [
                Controller(name: "tabs", childForStatusBarStyle: "list", childForStatusBarHidden: "player"),
                Controller(name: "list", preferredStatusBarStyle: .darkContent),
                Controller(name: "player", prefersStatusBarHidden: true, preferredStatusBarUpdateAnimation: .slide),
            ]
        ).get()
        changes.merge(engine.setControllers(hierarchy, at: .seconds(1.1)).changes)
        changes.merge(engine.update(id: 1, with: MessageInput(text: "changed"), at: .seconds(1.2)).changes)
        #expect(engine.phase == .hiding)
        #expect(engine.leaving?.text == "drawn")
        #expect(engine.message(id: 1)?.text == "changed")
        let motion = try #require(engine.statusBar.motion)
        #expect(
            motion == StatusBar.Motion(animation: .slide, from: 1, to: 0, start: .seconds(1.1), length: .seconds(0.4)))
        #expect(engine.statusBar.styleFrom == "list")
        #expect(engine.statusBar.hiddenFrom == "player")
        try StoredState.submit(ChannelRecord(name: "bar", engine: engine, changes: changes), in: directory)
        do {
            let store = try OverlayStore(directory: directory.path)
            let stored = try #require(try store.writer.loadChannel("bar"))
            #expect(stored.state == engine.state)
            #expect(stored.state.statusBarTransient.motion == motion)
            #expect(stored.state.leaving == engine.leaving)
            store.close()
        }
        // The hide ends: the leaving row goes, the motion's columns are null again.
        let ended = engine.advance(to: .seconds(2))
        #expect(engine.leaving == nil)
        #expect(engine.statusBar.motion == nil)
        try StoredState.submit(
            ChannelRecord(name: "bar", engine: engine, changes: ended), in: directory, loadingFirst: true)
        do {
            let store = try OverlayStore(directory: directory.path)
            let stored = try #require(try store.writer.loadChannel("bar"))
            #expect(stored.state == engine.state)
            store.close()
        }
        let database = try Database(path: directory.database)
        let rows = try database.prepare("SELECT count(*) FROM leaving_messages")
        #expect(try rows.step())
        #expect(rows.int(0) == 0)
    }

    /// A list that names a column the table lacks fails when its statement is prepared.
    @Test func unknownColumnFailsAtPrepare() throws {
        let directory = try TemporaryDirectory()
        let store = try OverlayStore(directory: directory.path)
        store.close()
        let database = try Database(path: directory.database)
        var columns = Schema.messages.columns
        columns[3] = Column("txet", \MessageRow.message.text)
        let misspelt = Table(name: "messages", key: ["channel", "id"], columns: columns)
        #expect(throws: StoreError.self) { _ = try misspelt.prepareSelect(database, orderBy: "id") }
        #expect(throws: StoreError.self) { _ = try database.prepare(misspelt.upsert) }
    }

    /// A column read into a field of another type (here the text into the id) fails with the
    /// column's name, instead of reading a wrong value.
    @Test func valueOfTheWrongTypeFailsByName() throws {
        let directory = try TemporaryDirectory()
        let store = try OverlayStore(directory: directory.path)
        store.close()
        let database = try Database(path: directory.database)
        try database.execute(
            """
            INSERT INTO messages (channel, id, kind, text, immediate, state, posted_at_ns, queue_order)
            VALUES ('default', 1, 'info', 'hello', 0, 'queued', 0, 1)
            """)
        var columns = Schema.messages.columns
        columns[3] = Column("text", \MessageRow.message.id)
        let swapped = Table(name: "messages", key: ["channel", "id"], columns: columns)
        let select = try swapped.prepareSelect(database, orderBy: "id")
        #expect(try select.step())
        var row = MessageRow.empty
        let error = #expect(throws: StoreError.self) {
            try swapped.read(select, into: &row, path: directory.database)
        }
        #expect(error?.message.contains("messages.text") == true)
        // An unknown enumeration name is refused the same way.
        try database.execute("UPDATE messages SET kind = 'shouting'")
        let kinds = try Schema.messages.prepareSelect(database, orderBy: "id")
        #expect(try kinds.step())
        #expect(throws: StoreError.self) { try Schema.messages.read(kinds, into: &row, path: directory.database) }
    }

    /// Every field a store keeps, each set to a value no other field has, written and read back
    /// through the store: each comes back in its own field.
    @Test func everyStoredFieldRoundTrips() throws {
        let directory = try TemporaryDirectory()
        var engine = OverlayEngine(configuration: EngineConfiguration())
        var changes = Changes()
        changes.merge(engine.changeDevice(to: .iphone, at: .seconds(0.5)).changes)
        let inputs = [
            MessageInput(kind: .sending, text: "shown", immediate: true, key: "upload-1"),
            MessageInput(
                kind: .progress, text: "queued", progress: 0.375, duration: .seconds(42.5), key: "dl-7",
                expires: .seconds(600)),
            MessageInput(kind: .failed, text: "ended", duration: .seconds(7), priority: .low),
            MessageInput(kind: .info, text: "later", delay: .seconds(90), expires: .seconds(30), priority: .max),
        ]
        for (offset, var input) in inputs.enumerated() {
            if offset == 1 {
                // The reader's side (docs/MODEL.md §14), with text a JSON column must escape.
                input.click = .some("myapp://open?q=\"x\"")
                input.actions = [
                    MessageAction(id: "open", label: "Open \"it\" \\ now\u{1}\n😀", url: "https://example.com/a"),
                    MessageAction(id: "later", label: "Later"),
                ]
                input.accessibilityLabel = .some("Downloading, a quarter done")
            }
            changes.merge(engine.post(input, at: .seconds(1 + Double(offset))).changes)
        }
        changes.merge(engine.tap(action: nil, at: .seconds(4)).changes)
        // 1 is cancelled while shown (shown at 1, displayed from 1.25), and 2 replaces it at 4.
        changes.merge(engine.delete(id: 1, at: .seconds(4)).changes)
        changes.merge(engine.tap(action: "later", at: .seconds(4.5)).changes)
        changes.merge(engine.changeOrientation(to: .landscapeLeft, at: .seconds(5)).changes)
        let record = ChannelRecord(name: "ops", engine: engine, changes: changes)
        #expect(Set(record.messages.map(\.id)) == [1, 2, 3, 4])

        try StoredState.submit(record, in: directory)
        let store = try OverlayStore(directory: directory.path)
        let loaded = try #require(store.load().first)
        #expect(loaded.name == "ops")
        // The state as it was, but for the reservations a restart continues from.
        var expected = engine.state
        expected.version += StoreWriter.versionReserve
        expected.nextID += StoreWriter.idReserve
        #expect(loaded.state == expected)
        #expect(loaded.state.rotationTarget == .landscapeLeft)
        #expect(loaded.state.phase == .rotatingOut)
        #expect(loaded.state.transition != nil)
        #expect(loaded.state.device == "iphone")

        func stored(_ message: Message) -> [String] {
            [
                "id=\(message.id)", "kind=\(message.kind)", "text=\(message.text)",
                "progress=\(String(describing: message.progress))", "duration=\(String(describing: message.duration))",
                "immediate=\(message.immediate)", "key=\(String(describing: message.key))", "state=\(message.state)",
                "postedAt=\(message.postedAt)", "shownAt=\(String(describing: message.shownAt))",
                "displayStartedAt=\(String(describing: message.displayStartedAt))",
                "deadline=\(String(describing: message.deadline))", "expires=\(message.expiresAtDeadline)",
                "endedAt=\(String(describing: message.endedAt))",
                "queueOrder=\(message.queueOrder)", "scheduledFor=\(String(describing: message.scheduledFor))",
                "joinedAt=\(String(describing: message.joinedAt))",
                "expiresAfter=\(String(describing: message.expires))",
                "expiresAt=\(String(describing: message.expiresAt))", "priority=\(message.priority)",
                "requestedPriority=\(String(describing: message.requestedPriority))",
                "hasBeenShown=\(message.hasBeenShown)", "click=\(String(describing: message.click))",
                "actions=\(message.actions)", "accessibilityLabel=\(String(describing: message.accessibilityLabel))",
                "taps=\(message.taps)",
            ]
        }
        let live = engine.liveMessages + Array(engine.scheduledMessages)
        #expect(loaded.live.map(stored) == live.sorted { $0.queueOrder < $1.queueOrder }.map(stored))
        #expect(loaded.live.map(\.id).sorted() == [2, 3, 4])
        #expect(loaded.history.map(stored) == engine.history.map(stored))
        #expect(loaded.history.first?.endedAt == .seconds(4))
        #expect(loaded.history.first?.shownAt == .seconds(1))
        #expect(loaded.history.first?.displayStartedAt == .seconds(1.25))
        #expect(loaded.live.first { $0.id == 2 }?.shownAt == .seconds(4))
        #expect(loaded.live.first { $0.id == 2 }?.progress == 0.375)
        // 2 was shown at 4 (its expiry then no longer applies); 3 waits, low; 4 waits for its time.
        let shown = try #require(loaded.live.first { $0.id == 2 })
        #expect(shown.expires == .seconds(600) && shown.expiresAt == nil && shown.hasBeenShown)
        let low = try #require(loaded.live.first { $0.id == 3 })
        #expect(low.requestedPriority == .low && low.priority == .low && !low.hasBeenShown)
        let later = try #require(loaded.live.first { $0.id == 4 })
        #expect(later.state == .scheduled && later.scheduledFor == .seconds(94) && later.joinedAt == nil)
        #expect(later.expires == .seconds(30) && later.priority == .max && later.requestedPriority == .max)
        // The reader's side: 2 keeps its click, actions, label and tap; 1 its tap, in the history.
        #expect(shown.actions.count == 2 && shown.actions[0].label == "Open \"it\" \\ now\u{1}\n😀")
        #expect(shown.click == "myapp://open?q=\"x\"" && shown.accessibilityLabel == "Downloading, a quarter done")
        #expect(shown.taps == [Tap(at: .seconds(4.5), action: "later")])
        #expect(loaded.history.first?.taps == [Tap(at: .seconds(4))])
        #expect(loaded.state.announcementVersion == engine.announcementVersion)
    }

    /// A list column holds JSON an operator can read; a column that does not hold a list of the
    /// element's shape fails by name instead of reading as something else.
    @Test func listColumnsRoundTripAndRefuseWhatTheyCannotRead() throws {
        let actions = [
            MessageAction(id: "a", label: "\u{0}\u{1F}\"\\/é😀\u{2028}", url: "x:y"), MessageAction(id: "b", label: "B"),
        ]
        guard case .text(let text) = actions.sqlValue else {
            Issue.record("not text: \(actions.sqlValue)")
            return
        }
        #expect(text.hasPrefix(#"[{"id":"a","label":"\u0000\u001f\"\\/é😀"#))
        #expect([MessageAction](sqlValue: actions.sqlValue) == actions)
        #expect([MessageAction](sqlValue: .null) == [])
        #expect([MessageAction]().sqlValue == .null)
        let taps = [Tap(at: .seconds(1.5), action: "a"), Tap(at: .seconds(-2))]
        #expect([Tap](sqlValue: taps.sqlValue) == taps)
        #expect(taps.sqlValue == .text(#"[{"at_ns":1500000000,"action":"a"},{"at_ns":-2000000000,"action":null}]"#))
        // Written by hand, with blanks, escapes and a surrogate pair.
        #expect(
            [MessageAction](sqlValue: .text(#" [ { "label" : "\ud83d\ude00\t" , "id" : "x" } ] "#))
                == [MessageAction(id: "x", label: "😀\t")])
        for damaged in [
            "", "[", "[{}]", #"[{"id":"a"}]"#, #"[{"id":1,"label":"b"}]"#, #"{"id":"a","label":"b"}"#,
            #"[{"id":"a","label":"b","id":"c"}]"#, #"[{"id":"a","label":"b"}] x"#, #"[{"id":"a","label":"\ud800"}]"#,
            #"[{"id":"a","label":"b\q"}]"#, "[{\"id\":\"a\",\"label\":\"b\u{1}\"}]",
            #"[{"id":"a","label":"b","url":5}]"#,
        ] {
            #expect([MessageAction](sqlValue: .text(damaged)) == nil, "\(damaged)")
        }
        #expect([Tap](sqlValue: .text(#"[{"at_ns":"1"}]"#)) == nil)
        #expect([Tap](sqlValue: .text(#"[{"at_ns":99999999999999999999}]"#)) == nil)
        #expect([Tap](sqlValue: .integer(1)) == nil)
    }
}
