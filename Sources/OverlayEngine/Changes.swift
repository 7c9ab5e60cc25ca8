/// What one or more events changed: what a store must write to keep up with the engine.
///
/// Every event reports its changes, and those of the deadlines it reached first, as a value it
/// returns (see `Applied`); the caller merges those of the events it runs under one lock and
/// hands them to its store, or drops them when nothing is stored.
public struct Changes: Hashable, Sendable {
    // Most events change one to three messages: those ids live inline, so that an event that
    // nobody stores allocates nothing. An id recorded twice in a row is kept once; other repeats
    // stay (a set insert, or comparing the old and new message, would cost more than a
    // duplicate that the store skips).
    private var inline: (Int64, Int64, Int64, Int64) = (0, 0, 0, 0)
    private var inlineCount = 0
    /// The ids past the inline ones; nil until there are any (an empty array still costs a
    /// retain and a release each time a `Changes` is made and dropped).
    private var overflow: [Int64]? = nil
    /// Whether the version moved: something changed that a reader sees.
    public private(set) var versionMoved = false
    /// A reader's tap in these events, which the event stream tells after the overlay's version
    /// (`OverlayEngine.tap`); never stored apart from the message it is kept on.
    public private(set) var tapped: MessageTap?

    public init() {}

    /// Whether nothing changed.
    public var isEmpty: Bool { inlineCount == 0 && !versionMoved }

    /// The ids of the messages whose stored record changed: created, changed, ended, moved in the
    /// queue, or forgotten (gone from the history). An id may repeat.
    public var messages: [Int64] {
        var ids: [Int64] = []
        ids.reserveCapacity(inlineCount + (overflow?.count ?? 0))
        for index in 0..<inlineCount { ids.append(inlineID(index)) }
        return ids + (overflow ?? [])
    }

    /// Adds what `other` changed, after this.
    public mutating func merge(_ other: Changes) {
        for index in 0..<other.inlineCount { record(other.inlineID(index)) }
        for id in other.overflow ?? [] { record(id) }
        versionMoved = versionMoved || other.versionMoved
        if let tap = other.tapped { tapped = tap }
    }

    mutating func record(_ id: Int64) {
        switch inlineCount {
        case 0: inline.0 = id
        case 1 where inline.0 == id, 2 where inline.1 == id, 3 where inline.2 == id: return
        case 1: inline.1 = id
        case 2: inline.2 = id
        case 3: inline.3 = id
        default:
            if (overflow?.last ?? inline.3) == id { return }
            if overflow == nil { overflow = [id] } else { overflow!.append(id) }
            return
        }
        inlineCount += 1
    }

    mutating func recordVersionMoved() {
        versionMoved = true
    }

    mutating func recordTap(_ tap: MessageTap) {
        tapped = tap
    }

    private func inlineID(_ index: Int) -> Int64 {
        switch index {
        case 0: inline.0
        case 1: inline.1
        case 2: inline.2
        default: inline.3
        }
    }

    public static func == (lhs: Changes, rhs: Changes) -> Bool {
        lhs.versionMoved == rhs.versionMoved && lhs.messages == rhs.messages && lhs.tapped == rhs.tapped
    }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(versionMoved)
        hasher.combine(messages)
        hasher.combine(tapped)
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
