/// What one or more events changed: what a store must write to keep up with the engine.
///
/// Every event reports its changes, and those of the deadlines it reached first, as a value it
/// returns (see `Applied`); the caller merges those of the events it runs under one lock and
/// hands them to its store, or drops them when nothing is stored.
public struct Changes: Hashable, Sendable {
    /// The ids of the messages whose stored record changed: created, changed, ended, moved in the
    /// queue, or forgotten (gone from the history). An id may repeat: recording one costs an
    /// append, where a set insert or a comparison of the old and new message would cost more, and
    /// most changes are never stored.
    public private(set) var messages: [Int64] = []
    /// Whether the version moved: something changed that a reader sees.
    public private(set) var versionMoved = false

    public init() {}

    /// Whether nothing changed.
    public var isEmpty: Bool { messages.isEmpty && !versionMoved }

    /// Adds what `other` changed, after this.
    public mutating func merge(_ other: Changes) {
        if messages.isEmpty {
            messages = other.messages
        } else {
            messages += other.messages
        }
        versionMoved = versionMoved || other.versionMoved
    }

    mutating func record(_ id: Int64) {
        messages.append(id)
    }

    mutating func recordVersionMoved() {
        versionMoved = true
    }
}

/// An event's answer, with what it changed.
public struct Applied<Value> {
    public var value: Value
    public var changes: Changes

    public init(_ value: Value, changes: Changes) {
        self.value = value
        self.changes = changes
    }

    /// The same changes with the answer transformed.
    public func map<Other, Failure: Error>(
        _ transform: (Value) throws(Failure) -> Other
    ) throws(Failure) -> Applied<Other> {
        Applied<Other>(try transform(value), changes: changes)
    }
}

extension Applied: Sendable where Value: Sendable {}
