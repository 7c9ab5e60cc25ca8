private import CSQLite

/// Why the store cannot be used. Start-up turns it into exit status 2.
public struct StoreError: Error, Hashable, Sendable, CustomStringConvertible {
    public var message: String

    public init(_ message: String) {
        self.message = message
    }

    public var description: String { message }
}

/// One SQLite connection, used by one thread at a time (the store's writer, or start-up).
final class Database {
    private let handle: OpaquePointer
    let path: String

    init(path: String) throws(StoreError) {
        var opened: OpaquePointer?
        let flags = SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX
        let status = sqlite3_open_v2(path, &opened, flags, nil)
        guard status == SQLITE_OK, let opened else {
            let reason = opened.map { String(cString: sqlite3_errmsg($0)) } ?? "out of memory"
            sqlite3_close(opened)
            throw StoreError("cannot open \(path): \(reason)")
        }
        handle = opened
        self.path = path
    }

    deinit {
        sqlite3_close(handle)
    }

    /// Runs SQL that returns no rows.
    func execute(_ sql: String) throws(StoreError) {
        var error: UnsafeMutablePointer<CChar>?
        guard sqlite3_exec(handle, sql, nil, nil, &error) == SQLITE_OK else {
            let reason = error.map { String(cString: $0) } ?? lastError
            sqlite3_free(error)
            throw StoreError("\(path): \(reason)")
        }
    }

    func prepare(_ sql: String) throws(StoreError) -> Statement {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else {
            throw StoreError("\(path): \(lastError)")
        }
        return Statement(handle: statement, database: self)
    }

    var lastError: String { String(cString: sqlite3_errmsg(handle)) }
}

/// A prepared statement: bind by position (from 1), step, read columns (from 0). `Table` binds and
/// reads its rows by column name through these.
final class Statement {
    private let handle: OpaquePointer
    /// Held so that the connection outlives its statements: SQLite does not close a connection
    /// with a statement not yet finalized (sqlite3_close answers SQLITE_BUSY and leaks it).
    private let database: Database

    fileprivate init(handle: OpaquePointer, database: Database) {
        self.handle = handle
        self.database = database
    }

    deinit {
        sqlite3_finalize(handle)
    }

    func bind(_ index: Int32, _ value: Int64?) {
        if let value { sqlite3_bind_int64(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    func bind(_ index: Int32, _ value: Double?) {
        if let value { sqlite3_bind_double(handle, index, value) } else { sqlite3_bind_null(handle, index) }
    }

    func bind(_ index: Int32, _ value: String?) {
        guard let value else {
            sqlite3_bind_null(handle, index)
            return
        }
        var text = value
        text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) {
                _ = overlayd_sqlite_bind_text(handle, index, $0.baseAddress, Int32($0.count))
            }
        }
    }

    func bind(_ index: Int32, _ value: SQLValue) {
        switch value {
        case .null: sqlite3_bind_null(handle, index)
        case .integer(let integer): sqlite3_bind_int64(handle, index, integer)
        case .real(let real): sqlite3_bind_double(handle, index, real)
        case .text(let text): bind(index, text)
        }
    }

    /// Steps once: true while a row is there.
    func step() throws(StoreError) -> Bool {
        switch sqlite3_step(handle) {
        case SQLITE_ROW: return true
        case SQLITE_DONE: return false
        default: throw StoreError("\(database.path): \(database.lastError)")
        }
    }

    /// Runs a statement that returns no rows, then readies it for the next use.
    func run() throws(StoreError) {
        defer { reset() }
        _ = try step()
    }

    func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    /// The value of `column` in the current row, by its type in the row.
    func value(_ column: Int32) -> SQLValue {
        switch sqlite3_column_type(handle, column) {
        case SQLITE_NULL: .null
        case SQLITE_INTEGER: .integer(int(column))
        case SQLITE_FLOAT: .real(double(column))
        default: .text(string(column))
        }
    }

    /// The names of the result's columns, in order.
    var columnNames: [String] {
        (0..<sqlite3_column_count(handle)).map { String(cString: sqlite3_column_name(handle, $0)) }
    }

    func isNull(_ column: Int32) -> Bool { sqlite3_column_type(handle, column) == SQLITE_NULL }

    func int(_ column: Int32) -> Int64 { sqlite3_column_int64(handle, column) }

    func double(_ column: Int32) -> Double { sqlite3_column_double(handle, column) }

    func string(_ column: Int32) -> String {
        guard let text = sqlite3_column_text(handle, column) else { return "" }
        let count = Int(sqlite3_column_bytes(handle, column))
        return String(decoding: UnsafeBufferPointer(start: text, count: count), as: UTF8.self)
    }
}
