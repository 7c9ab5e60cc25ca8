/// The waiting messages in the order they show, each also found by its id in constant time.
///
/// Six lists linked through one dictionary by id: first the messages sent to the head (a sticky
/// message put back by an immediate one, an immediate one waiting behind a hide), newest first,
/// then one list per priority, highest first, each in the order its messages joined. Appending,
/// prepending, taking the first, taking one out of the middle (a DELETE), changing one (a PATCH)
/// and finding one (a GET, a keyed POST) cost the same at any depth, and a page after a given
/// message costs the page, not the queue. Only a change of priority walks, through its new list
/// from the end, to the place its joining gives it.
public struct MessageQueue: Sequence, Sendable {
    fileprivate struct Node: Sendable {
        var message: Message
        /// The ids of the neighbours in its list; 0 for none (ids start at 1).
        var previous: Int64
        var next: Int64
        var lane: Int
    }

    private var nodes: [Int64: Node] = [:]
    private var heads = [Int64](repeating: 0, count: MessageQueue.laneCount)
    private var tails = [Int64](repeating: 0, count: MessageQueue.laneCount)

    private static let laneCount = 1 + Priority.allCases.count
    /// The `textBytes` of every queued message, kept as they come and go.
    public private(set) var textBytes = 0

    public init() {}

    /// The list a message waits in: the head's (a `queueOrder` below zero), or its priority's.
    private static func lane(of message: borrowing Message) -> Int {
        message.queueOrder < 0 ? 0 : 1 + Priority.max.rawValue - message.priority.rawValue
    }

    public var count: Int { nodes.count }
    public var isEmpty: Bool { nodes.isEmpty }
    /// The message that shows next.
    public var first: Message? { firstID(from: 0).flatMap { nodes[$0]?.message } }
    /// The message that would show last.
    public var last: Message? {
        for lane in stride(from: MessageQueue.laneCount - 1, through: 0, by: -1) where tails[lane] != 0 {
            return nodes[tails[lane]]?.message
        }
        return nil
    }

    /// The first id of the first non-empty list from `lane` on; nil when they are all empty.
    private func firstID(from lane: Int) -> Int64? {
        var lane = lane
        while lane < MessageQueue.laneCount {
            if heads[lane] != 0 { return heads[lane] }
            lane += 1
        }
        return nil
    }

    /// The id that follows `node` in the queue, across lists; 0 at the end.
    private func id(after node: Node) -> Int64 {
        node.next != 0 ? node.next : firstID(from: node.lane + 1) ?? 0
    }

    /// The queued message with this id.
    public subscript(id id: Int64) -> Message? { nodes[id]?.message }

    public func contains(id: Int64) -> Bool { nodes[id] != nil }

    /// At the end of its list: the last to join its priority, or, sent to the head, behind the
    /// ones already there (a restore, which adds them in order).
    mutating func append(_ message: consuming Message) {
        let id = message.id
        let lane = MessageQueue.lane(of: message)
        assert(nodes[id] == nil, "message \(id) is queued already")
        textBytes += message.textBytes
        nodes[id] = Node(message: message, previous: tails[lane], next: 0, lane: lane)
        link(id, after: tails[lane], in: lane)
    }

    /// At the very head of the queue: it shows next.
    mutating func prepend(_ message: consuming Message) {
        let id = message.id
        precondition(message.queueOrder < 0, "only a message sent to the head is prepended")
        textBytes += message.textBytes
        nodes[id] = Node(message: message, previous: 0, next: heads[0], lane: 0)
        link(id, after: 0, in: 0)
    }

    /// Puts the node `id` (whose `previous` and `next` are set) between `previous` and its next.
    private mutating func link(_ id: Int64, after previous: Int64, in lane: Int) {
        let next = previous == 0 ? heads[lane] : nodes[previous]!.next
        nodes[id]!.previous = previous
        nodes[id]!.next = next
        if previous == 0 { heads[lane] = id } else { nodes[previous]!.next = id }
        if next == 0 { tails[lane] = id } else { nodes[next]!.previous = id }
    }

    private mutating func unlink(_ node: Node) {
        if node.previous == 0 { heads[node.lane] = node.next } else { nodes[node.previous]!.next = node.next }
        if node.next == 0 { tails[node.lane] = node.previous } else { nodes[node.next]!.previous = node.previous }
    }

    @discardableResult
    mutating func removeFirst() -> Message {
        guard let id = firstID(from: 0) else { preconditionFailure("removeFirst from an empty queue") }
        return remove(id: id)!
    }

    /// Takes the message with this id out of the queue, wherever it stands.
    @discardableResult
    mutating func remove(id: Int64) -> Message? {
        guard let node = nodes.removeValue(forKey: id) else { return nil }
        unlink(node)
        textBytes -= node.message.textBytes
        return node.message
    }

    /// Changes the queued message with this id in place. A new priority moves it to its new list,
    /// among the ones that joined before and after it; its place among the others stays.
    mutating func update(id: Int64, _ change: (inout Message) -> Void) {
        guard let before = nodes[id]?.message.textBytes else { return }
        change(&nodes[id]!.message)
        let node = nodes[id]!
        textBytes += node.message.textBytes - before
        let lane = MessageQueue.lane(of: node.message)
        guard lane != node.lane else { return }
        unlink(node)
        nodes[id]!.lane = lane
        var previous = tails[lane]
        let order = node.message.queueOrder
        while previous != 0, let before = nodes[previous], before.message.queueOrder > order {
            previous = before.previous
        }
        link(id, after: previous, in: lane)
    }

    /// Up to `limit` messages in queue order, after the one with id `after` (from the first when
    /// nil), and whether more follow; nil if `after` is not queued.
    func messages(after: Int64?, limit: Int) -> (messages: [Message], more: Bool)? {
        var id = firstID(from: 0) ?? 0
        if let after {
            guard let node = nodes[after] else { return nil }
            id = self.id(after: node)
        }
        var page: [Message] = []
        while id != 0, page.count < limit, let node = nodes[id] {
            page.append(node.message)
            id = self.id(after: node)
        }
        return (page, id != 0)
    }

    public struct Iterator: IteratorProtocol {
        fileprivate let queue: MessageQueue
        fileprivate var id: Int64

        public mutating func next() -> Message? {
            guard let node = queue.nodes[id] else { return nil }
            id = queue.id(after: node)
            return node.message
        }
    }

    public func makeIterator() -> Iterator {
        Iterator(queue: self, id: firstID(from: 0) ?? 0)
    }

    public var underestimatedCount: Int { count }
}

extension MessageQueue: Equatable {
    public static func == (lhs: MessageQueue, rhs: MessageQueue) -> Bool {
        lhs.count == rhs.count && lhs.elementsEqual(rhs)
    }
}

extension MessageQueue: Hashable {
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for message in self { hasher.combine(message) }
    }
}
