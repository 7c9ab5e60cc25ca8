/// The messages waiting for their time, in the order they join the queue: by time, then by id.
///
/// At most `maxScheduled` (1,000 by default), so a sorted array of keys is the whole index:
/// the first is read in constant time, an insertion or removal moves at most that many keys.
public struct ScheduledMessages: Sequence, Hashable, Sendable {
    private struct Key: Hashable, Comparable, Sendable {
        var time: Instant
        var id: Int64

        static func < (lhs: Key, rhs: Key) -> Bool { (lhs.time, lhs.id) < (rhs.time, rhs.id) }
    }

    private var messages: [Int64: Message] = [:]
    private var order: [Key] = []
    /// The `textBytes` of every scheduled message, kept as they come and go.
    public private(set) var textBytes = 0

    public init() {}

    public var count: Int { order.count }
    public var isEmpty: Bool { order.isEmpty }
    /// The message due first.
    public var first: Message? { order.first.flatMap { messages[$0.id] } }
    /// When the first is due: its key's time, which is its `scheduledFor`. Read on every
    /// `GET /overlay`, where `first?.scheduledFor` copied the message out of the dictionary.
    var firstDue: Instant? { order.first?.time }

    public subscript(id id: Int64) -> Message? { messages[id] }

    /// Adds a message whose `scheduledFor` is set.
    mutating func insert(_ message: Message) {
        let key = Key(time: message.scheduledFor ?? .zero, id: message.id)
        assert(messages[message.id] == nil, "message \(message.id) is scheduled already")
        textBytes += message.textBytes
        messages[message.id] = message
        order.insert(key, at: index(of: key))
    }

    @discardableResult
    mutating func remove(id: Int64) -> Message? {
        guard let message = messages.removeValue(forKey: id) else { return nil }
        textBytes -= message.textBytes
        let key = Key(time: message.scheduledFor ?? .zero, id: id)
        let at = index(of: key)
        if at < order.count, order[at] == key { order.remove(at: at) }
        return message
    }

    /// Changes a scheduled message; a new time moves it to its new place.
    mutating func update(id: Int64, _ change: (inout Message) -> Void) {
        guard var message = remove(id: id) else { return }
        change(&message)
        insert(message)
    }

    /// Up to `limit` messages in the order they are due, after the one with id `after` (from the
    /// first when nil), and whether more follow; nil if `after` is not scheduled.
    func messages(after: Int64?, limit: Int) -> (messages: [Message], more: Bool)? {
        var start = 0
        if let after {
            guard let message = messages[after] else { return nil }
            start = index(of: Key(time: message.scheduledFor ?? .zero, id: after)) + 1
        }
        let end = Swift.min(order.count, start + Swift.max(0, limit))
        let page = order[start..<end].compactMap { messages[$0.id] }
        return (page, end < order.count)
    }

    /// Where `key` is, or would go: the first position whose key is not smaller.
    private func index(of key: Key) -> Int {
        var low = 0
        var high = order.count
        while low < high {
            let middle = (low + high) / 2
            if order[middle] < key { low = middle + 1 } else { high = middle }
        }
        return low
    }

    public func makeIterator() -> some IteratorProtocol<Message> {
        order.lazy.compactMap { messages[$0.id] }.makeIterator()
    }

    public var underestimatedCount: Int { count }
}
