import OverlayEngine

/// The database connection and what only its user touches: the prepared statements and the
/// reservations already on disk. Start-up opens and loads it; then only the writer thread uses it.
// Safe to send: start-up finishes with it before `OverlayStore.start` hands it to the writer
// thread, the only one to touch it from then on.
final class StoreWriter: @unchecked Sendable {
    /// Versions reserved ahead of the current one.
    static let versionReserve: UInt64 = 100_000
    /// Ids reserved ahead of the next one.
    static let idReserve: Int64 = 1_000

    let database: Database
    private let upsertChannel: Statement
    private let upsertMessage: Statement
    private let deleteMessage: Statement
    private let upsertController: Statement
    private let deleteControllers: Statement
    private let upsertLeaving: Statement
    private let deleteLeaving: Statement
    /// A deleted channel's rows, table by table.
    private let removeChannel: [Statement]
    private var reservedVersions: [String: UInt64] = [:]
    /// The status-bar hierarchy on disk per channel (`.some(nil)`: none): a record rewrites the
    /// controllers' rows only when its hierarchy differs (it is sent rarely, and every record
    /// carries it). A channel missing here, not loaded in this run, is written in full once.
    private var storedHierarchies: [String: ControllerHierarchy?] = [:]
    /// The leaving message on disk per channel, written the same way: only when it differs.
    private var storedLeaving: [String: Message?] = [:]
    private var reservedIDs: [String: Int64] = [:]
    private var historySequence: Int64 = 0

    init(database: Database) throws(StoreError) {
        self.database = database
        upsertChannel = try database.prepare(Schema.channels.upsert)
        upsertMessage = try database.prepare(Schema.messages.upsert)
        deleteMessage = try database.prepare("DELETE FROM messages WHERE channel = ?1 AND id = ?2")
        upsertController = try database.prepare(Schema.controllers.upsert)
        deleteControllers = try database.prepare("DELETE FROM status_bar_controllers WHERE channel = ?1")
        upsertLeaving = try database.prepare(Schema.leaving.upsert)
        deleteLeaving = try database.prepare("DELETE FROM leaving_messages WHERE channel = ?1")
        removeChannel = [
            try database.prepare("DELETE FROM channels WHERE name = ?1"),
            try database.prepare("DELETE FROM messages WHERE channel = ?1"),
            try database.prepare("DELETE FROM status_bar_controllers WHERE channel = ?1"),
            try database.prepare("DELETE FROM leaving_messages WHERE channel = ?1"),
        ]
        let maximum = try database.prepare("SELECT coalesce(max(history_seq), 0) FROM messages")
        if try maximum.step() { historySequence = maximum.int(0) }
    }

    /// Every stored channel, its reservations taken as its version and next id.
    func load() throws(StoreError) -> [LoadedChannel] {
        let path = database.path
        let channels = try Schema.channels.prepareSelect(database, orderBy: "name")
        let reads = try ChannelReads(database)
        var loaded: [LoadedChannel] = []
        while try channels.step() {
            var row = ChannelRow.empty
            try Schema.channels.read(channels, into: &row, path: path)
            var state = try self.state(of: row, reads: reads)
            storedHierarchies.updateValue(state.statusBar?.hierarchy, forKey: row.name)
            storedLeaving.updateValue(state.leaving, forKey: row.name)
            state.version = row.versionReserved
            state.nextID = max(1, row.idReserved)
            reservedVersions[row.name] = row.versionReserved
            reservedIDs[row.name] = row.idReserved
            loaded.append(try channel(row.name, state: state, reads: reads))
        }
        return loaded
    }

    /// What the database holds of one channel, as it was written (no reservation applied); nil
    /// if it holds nothing of it.
    func loadChannel(_ name: String) throws(StoreError) -> LoadedChannel? {
        let select = try Schema.channels.prepareSelect(database, where: "name = ?1", orderBy: "name")
        select.bind(1, name)
        guard try select.step() else { return nil }
        var row = ChannelRow.empty
        try Schema.channels.read(select, into: &row, path: database.path)
        let reads = try ChannelReads(database)
        return try channel(name, state: state(of: row, reads: reads), reads: reads)
    }

    /// The statements that read a channel's rows besides its own: its live and its ended
    /// messages, its status bar's controllers and its leaving message.
    private struct ChannelReads {
        let live: Statement
        let ended: Statement
        let controllers: Statement
        let leaving: Statement

        init(_ database: Database) throws(StoreError) {
            live = try Schema.messages.prepareSelect(
                database, where: "channel = ?1 AND history_seq IS NULL", orderBy: "queue_order")
            ended = try Schema.messages.prepareSelect(
                database, where: "channel = ?1 AND history_seq IS NOT NULL", orderBy: "history_seq")
            controllers = try Schema.controllers.prepareSelect(database, where: "channel = ?1", orderBy: "position")
            leaving = try Schema.leaving.prepareSelect(database, where: "channel = ?1", orderBy: "channel")
        }
    }

    private func channel(_ name: String, state: EngineState, reads: ChannelReads) throws(StoreError) -> LoadedChannel {
        LoadedChannel(
            name: name, state: state, live: try messages(of: name, from: reads.live),
            history: try messages(of: name, from: reads.ended))
    }

    /// The engine state of a channel's row, with its status bar's hierarchy and its leaving
    /// message read from their own rows.
    private func state(of row: ChannelRow, reads: ChannelReads) throws(StoreError) -> EngineState {
        let leaving = reads.leaving
        var state = row.state
        let hierarchy = try row.statusBarRoot.map { root throws(StoreError) in
            try self.hierarchy(of: row.name, root: root, from: reads.controllers)
        }
        state.statusBar = row.statusBar(hierarchy: hierarchy)
        leaving.bind(1, row.name)
        defer { leaving.reset() }
        if try leaving.step() {
            var message = MessageRow.empty
            try Schema.leaving.read(leaving, into: &message, path: database.path)
            state.leaving = message.message
        }
        return state
    }

    private func messages(of channel: String, from statement: Statement) throws(StoreError) -> [Message] {
        statement.bind(1, channel)
        defer { statement.reset() }
        var messages: [Message] = []
        while try statement.step() {
            var row = MessageRow.empty
            try Schema.messages.read(statement, into: &row, path: database.path)
            messages.append(row.message)
        }
        return messages
    }

    /// A channel's status-bar hierarchy from its rows, checked as one sent over HTTP is: a
    /// database that holds no valid hierarchy stops start-up rather than deciding the bar wrongly.
    private func hierarchy(
        of channel: String, root: String, from statement: Statement
    ) throws(StoreError) -> ControllerHierarchy {
        statement.bind(1, channel)
        defer { statement.reset() }
        var controllers: [ControllerHierarchy.Controller] = []
        while try statement.step() {
            var row = ControllerRow.empty
            try Schema.controllers.read(statement, into: &row, path: database.path)
            controllers.append(row.controller)
        }
        switch ControllerHierarchy.validated(root: root, controllers: controllers) {
        case .success(let hierarchy): return hierarchy
        case .failure(let error):
            throw StoreError(
                "\(database.path): the status-bar controllers of channel \(channel) are not a valid hierarchy: \(error)"
            )
        }
    }

    /// Writes `records` in one transaction; on an error nothing of them is written. `failing`
    /// writes them and then fails, as a full disk would at the commit (a test hook).
    func commit(_ records: [ChannelRecord], failing: Bool = false) throws(StoreError) {
        // What this transaction writes is on disk only if it commits.
        let hierarchiesBefore = storedHierarchies
        let leavingBefore = storedLeaving
        try database.execute("BEGIN IMMEDIATE")
        do throws(StoreError) {
            for record in records { try write(record) }
            if failing { throw StoreError("\(database.path): the commit failed on purpose (a test's failure)") }
            try database.execute("COMMIT")
        } catch {
            try? database.execute("ROLLBACK")
            storedHierarchies = hierarchiesBefore
            storedLeaving = leavingBefore
            throw error
        }
    }

    /// Forgets the reservations written so far: after a failed commit the database holds the
    /// ones before it, and the next write of each channel reserves again (never below them).
    func forgetReservations() {
        reservedVersions = [:]
        reservedIDs = [:]
    }

    private func write(_ record: ChannelRecord) throws(StoreError) {
        if record.removed {
            for statement in removeChannel {
                statement.bind(1, record.name)
                try statement.run()
            }
            // A channel made again under the name is written in full, as a new one.
            reservedVersions[record.name] = nil
            reservedIDs[record.name] = nil
            storedHierarchies[record.name] = nil
            storedLeaving[record.name] = nil
            return
        }
        var versionReserved = reservedVersions[record.name] ?? 0
        if record.state.version + StoreWriter.versionReserve / 2 > versionReserved {
            versionReserved = record.state.version + StoreWriter.versionReserve
            reservedVersions[record.name] = versionReserved
        }
        var idReserved = reservedIDs[record.name] ?? 0
        if record.state.nextID + StoreWriter.idReserve / 2 > idReserved {
            idReserved = record.state.nextID + StoreWriter.idReserve
            reservedIDs[record.name] = idReserved
        }
        Schema.channels.bind(
            ChannelRow(
                name: record.name, state: record.state, versionReserved: versionReserved, idReserved: idReserved),
            to: upsertChannel)
        try upsertChannel.run()
        for message in record.messages {
            var sequence: Int64?
            if message.state.hasEnded {
                historySequence += 1
                sequence = historySequence
            }
            Schema.messages.bind(
                MessageRow(channel: record.name, message: message, historySequence: sequence), to: upsertMessage)
            try upsertMessage.run()
        }
        let hierarchy = record.state.statusBar?.hierarchy
        if storedHierarchies[record.name] != .some(hierarchy) {
            deleteControllers.bind(1, record.name)
            try deleteControllers.run()
            for (position, controller) in (hierarchy?.controllers ?? []).enumerated() {
                Schema.controllers.bind(
                    ControllerRow(channel: record.name, position: Int64(position), controller: controller),
                    to: upsertController)
                try upsertController.run()
            }
            storedHierarchies.updateValue(hierarchy, forKey: record.name)
        }
        let leaving = record.state.leaving
        if storedLeaving[record.name] != .some(leaving) {
            if let leaving {
                Schema.leaving.bind(MessageRow(channel: record.name, message: leaving), to: upsertLeaving)
                try upsertLeaving.run()
            } else {
                deleteLeaving.bind(1, record.name)
                try deleteLeaving.run()
            }
            storedLeaving.updateValue(leaving, forKey: record.name)
        }
        for id in record.forgotten {
            deleteMessage.bind(1, record.name)
            deleteMessage.bind(2, id)
            try deleteMessage.run()
        }
    }
}
