/// Ended messages, oldest first, each also found by its id in constant time: a ring (appending
/// and dropping the oldest cost the same however long it is) and an index from id to place.
public struct MessageHistory: RandomAccessCollection, Sendable {
    private var ring = Ring<Message>()
    /// Each message's place, counted from the first message this history ever held, so that
    /// dropping the oldest moves no other entry.
    private var places: [Int64: Int] = [:]
    /// How many messages were dropped from the front.
    private var dropped = 0
    /// The `textBytes` of every message held, kept as they come and go.
    public private(set) var textBytes = 0

    public init() {}

    init<S: Sequence>(_ messages: S) where S.Element == Message {
        for message in messages { append(message) }
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { ring.count }
    public subscript(position: Int) -> Message { ring[position] }

    /// The ended message with this id.
    public subscript(id id: Int64) -> Message? {
        places[id].map { ring[$0 - dropped] }
    }

    /// Where the message with this id ended among all that ever ended here: a larger order ended
    /// later. Stays the same while the message is in the history.
    public func order(of id: Int64) -> Int? { places[id] }

    /// Where the message with this id is now, counted from the oldest held.
    public func position(of id: Int64) -> Int? { places[id].map { $0 - dropped } }

    mutating func append(_ message: Message) {
        places[message.id] = dropped + ring.count
        textBytes += message.textBytes
        ring.append(message)
    }

    @discardableResult
    mutating func removeFirst() -> Message {
        let first = ring.removeFirst()
        places[first.id] = nil
        textBytes -= first.textBytes
        dropped += 1
        return first
    }
}

extension MessageHistory: Equatable {
    public static func == (lhs: MessageHistory, rhs: MessageHistory) -> Bool {
        lhs.ring == rhs.ring
    }
}

extension MessageHistory: Hashable {
    public func hash(into hasher: inout Hasher) {
        hasher.combine(ring)
    }
}
