import OverlayEngine

/// A value as SQLite holds it.
enum SQLValue: Hashable, Sendable {
    case null
    case integer(Int64)
    case real(Double)
    case text(String)
}

/// A Swift value that a column holds, and how it is written to and read from SQLite.
protocol ColumnValue: SendableMetatype {
    var sqlValue: SQLValue { get }
    /// The value a column holds; nil if it holds something else (a text where a number belongs,
    /// an unknown enumeration case, a null where none may be).
    init?(sqlValue: SQLValue)
}

/// One column of a table: its name, and how its value is bound from a row and read back into one.
/// A table's list of these is the one place that says which field goes where: the SQL text, the
/// binds and the reads all come from it.
struct Column<Row>: Sendable {
    let name: String
    /// What an upsert sets the column to when the row exists already: `excluded.<name>` (the new
    /// value) unless given. Key columns never change.
    let onConflict: String
    let bind: @Sendable (Row) -> SQLValue
    /// Sets the row's field from a stored value; false if the value is not of the field's type.
    let read: @Sendable (inout Row, SQLValue) -> Bool

    init<Value: ColumnValue>(
        _ name: String, _ field: any WritableKeyPath<Row, Value> & Sendable, onConflict: String? = nil
    ) {
        self.init(name, get: { $0[keyPath: field] }, set: { $0[keyPath: field] = $1 }, onConflict: onConflict)
    }

    /// A column read and set by closures: for the tables written on every message, where
    /// projecting a key path at run time (its components' metadata looked up on each call) costs
    /// more than SQLite's own work.
    init<Value: ColumnValue>(
        _ name: String, get: @escaping @Sendable (Row) -> Value, set: @escaping @Sendable (inout Row, Value) -> Void,
        onConflict: String? = nil
    ) {
        self.name = name
        self.onConflict = onConflict ?? "excluded.\(name)"
        bind = { get($0).sqlValue }
        read = { row, stored in
            guard let value = Value(sqlValue: stored) else { return false }
            set(&row, value)
            return true
        }
    }
}

/// A table as the store writes and reads it: its columns in one list, its key among them.
struct Table<Row>: Sendable {
    let name: String
    /// The primary key's columns.
    let key: [String]
    let columns: [Column<Row>]

    /// Inserts a row, or updates the one with the same key (each column as its `onConflict` says).
    var upsert: String {
        let names = columns.map(\.name)
        let values = columns.indices.map { "?\($0 + 1)" }
        let updates = columns.filter { !key.contains($0.name) }.map { "\($0.name) = \($0.onConflict)" }
        return """
            INSERT INTO \(name) (\(names.joined(separator: ", "))) VALUES (\(values.joined(separator: ", ")))
            ON CONFLICT(\(key.joined(separator: ", "))) DO UPDATE SET \(updates.joined(separator: ", "))
            """
    }

    /// Every column of the rows that match `condition`, in `order`.
    func select(where condition: String = "1", orderBy order: String) -> String {
        "SELECT \(columns.map(\.name).joined(separator: ", ")) FROM \(name) WHERE \(condition) ORDER BY \(order)"
    }

    /// Prepares `select(…)` and checks that its result columns are this list, by name: a column
    /// missing from the database fails here, at start-up, instead of reading another one's value.
    func prepareSelect(
        _ database: Database, where condition: String = "1", orderBy order: String
    ) throws(StoreError) -> Statement {
        let statement = try database.prepare(select(where: condition, orderBy: order))
        let names = statement.columnNames
        guard names == columns.map(\.name) else {
            throw StoreError("\(database.path): \(name) reads columns \(names), not \(columns.map(\.name))")
        }
        return statement
    }

    /// Binds `row` to a prepared `upsert`.
    func bind(_ row: Row, to statement: Statement) {
        for (index, column) in columns.enumerated() {
            statement.bind(Int32(index + 1), column.bind(row))
        }
    }

    /// The current result row of a `prepareSelect` statement, read into `row`.
    func read(_ statement: Statement, into row: inout Row, path: String) throws(StoreError) {
        for (index, column) in columns.enumerated() {
            let stored = statement.value(Int32(index))
            guard column.read(&row, stored) else {
                throw StoreError("\(path): \(name).\(column.name) holds \(stored), which overlayd cannot read")
            }
        }
    }
}

// MARK: - The values columns hold

extension Int64: ColumnValue {
    var sqlValue: SQLValue { .integer(self) }
    init?(sqlValue: SQLValue) {
        guard case .integer(let value) = sqlValue else { return nil }
        self = value
    }
}

extension UInt64: ColumnValue {
    var sqlValue: SQLValue { .integer(Int64(clamping: self)) }
    init?(sqlValue: SQLValue) {
        guard case .integer(let value) = sqlValue, value >= 0 else { return nil }
        self = UInt64(value)
    }
}

extension Double: ColumnValue {
    var sqlValue: SQLValue { .real(self) }
    init?(sqlValue: SQLValue) {
        switch sqlValue {
        case .real(let value): self = value
        case .integer(let value): self = Double(value)
        default: return nil
        }
    }
}

extension Bool: ColumnValue {
    var sqlValue: SQLValue { .integer(self ? 1 : 0) }
    init?(sqlValue: SQLValue) {
        guard case .integer(let value) = sqlValue else { return nil }
        self = value != 0
    }
}

extension String: ColumnValue {
    var sqlValue: SQLValue { .text(self) }
    init?(sqlValue: SQLValue) {
        guard case .text(let value) = sqlValue else { return nil }
        self = value
    }
}

/// Times and lengths are whole nanoseconds.
extension Instant: ColumnValue {
    var sqlValue: SQLValue { .integer(nanoseconds) }
    init?(sqlValue: SQLValue) {
        guard let value = Int64(sqlValue: sqlValue) else { return nil }
        self.init(nanoseconds: value)
    }
}

extension Interval: ColumnValue {
    var sqlValue: SQLValue { .integer(nanoseconds) }
    init?(sqlValue: SQLValue) {
        guard let value = Int64(sqlValue: sqlValue) else { return nil }
        self.init(nanoseconds: value)
    }
}

/// Enumerations are their names, so that the database reads as text and a case added later
/// does not renumber the others.
protocol NamedColumnValue: ColumnValue, RawRepresentable where RawValue == String {}

extension NamedColumnValue {
    var sqlValue: SQLValue { .text(rawValue) }
    init?(sqlValue: SQLValue) {
        guard let name = String(sqlValue: sqlValue) else { return nil }
        self.init(rawValue: name)
    }
}

extension Orientation: NamedColumnValue {}
extension MessageKind: NamedColumnValue {}
extension MessageState: NamedColumnValue {}
extension Phase: NamedColumnValue {}
extension Presentation: NamedColumnValue {}
extension Transition.Property: NamedColumnValue {}
extension StatusBarStyle: NamedColumnValue {}
extension StatusBarAnimation: NamedColumnValue {}

/// Stored as its number, 1–5.
extension Priority: ColumnValue {
    var sqlValue: SQLValue { .integer(Int64(rawValue)) }
    init?(sqlValue: SQLValue) {
        guard case .integer(let number) = sqlValue, let priority = Priority(rawValue: Int(number)) else { return nil }
        self = priority
    }
}

extension Optional: ColumnValue where Wrapped: ColumnValue {
    var sqlValue: SQLValue { map(\.sqlValue) ?? .null }
    init?(sqlValue: SQLValue) {
        if sqlValue == .null {
            self = .none
            return
        }
        guard let value = Wrapped(sqlValue: sqlValue) else { return nil }
        self = .some(value)
    }
}
