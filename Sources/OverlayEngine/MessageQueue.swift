/// The waiting messages in the order they show, each also found by its id in constant time.
///
/// A list linked through a dictionary by id: appending, prepending, taking the first, taking one
/// out of the middle (a DELETE), changing one (a PATCH) and finding one (a GET, a keyed POST) cost
/// the same at any depth, and a page after a given message costs the page, not the queue.
public struct MessageQueue: Sequence, Sendable {
    fileprivate struct Node: Sendable {
        var message: Message
        /// The ids of the neighbours; 0 for none (ids start at 1).
        var previous: Int64
        var next: Int64
    }

    private var nodes: [Int64: Node] = [:]
    private var head: Int64 = 0
    private var tail: Int64 = 0

    public init() {}

    public var count: Int { nodes.count }
    public var isEmpty: Bool { head == 0 }
    /// The message that shows next.
    public var first: Message? { head == 0 ? nil : nodes[head]?.message }
    public var last: Message? { tail == 0 ? nil : nodes[tail]?.message }

    /// The queued message with this id.
    public subscript(id id: Int64) -> Message? { nodes[id]?.message }

    public func contains(id: Int64) -> Bool { nodes[id] != nil }

    mutating func append(_ message: consuming Message) {
        let id = message.id
        nodes[id] = Node(message: message, previous: tail, next: 0)
        if tail == 0 { head = id } else { nodes[tail]!.next = id }
        tail = id
    }

    mutating func prepend(_ message: consuming Message) {
        let id = message.id
        nodes[id] = Node(message: message, previous: 0, next: head)
        if head == 0 { tail = id } else { nodes[head]!.previous = id }
        head = id
    }

    @discardableResult
    mutating func removeFirst() -> Message {
        precondition(head != 0, "removeFirst from an empty queue")
        return remove(id: head)!
    }

    /// Takes the message with this id out of the queue, wherever it stands.
    @discardableResult
    mutating func remove(id: Int64) -> Message? {
        guard let node = nodes.removeValue(forKey: id) else { return nil }
        if node.previous == 0 { head = node.next } else { nodes[node.previous]!.next = node.next }
        if node.next == 0 { tail = node.previous } else { nodes[node.next]!.previous = node.previous }
        return node.message
    }

    /// Changes the queued message with this id in place (its place in the queue stays).
    mutating func update(id: Int64, _ change: (inout Message) -> Void) {
        guard nodes[id] != nil else { return }
        change(&nodes[id]!.message)
    }

    /// Up to `limit` messages in queue order, after the one with id `after` (from the first when
    /// nil), and whether more follow; nil if `after` is not queued.
    func messages(after: Int64?, limit: Int) -> (messages: [Message], more: Bool)? {
        var id = head
        if let after {
            guard let node = nodes[after] else { return nil }
            id = node.next
        }
        var page: [Message] = []
        while id != 0, page.count < limit, let node = nodes[id] {
            page.append(node.message)
            id = node.next
        }
        return (page, id != 0)
    }

    public struct Iterator: IteratorProtocol {
        fileprivate let nodes: [Int64: Node]
        fileprivate var id: Int64

        public mutating func next() -> Message? {
            guard let node = nodes[id] else { return nil }
            id = node.next
            return node.message
        }
    }

    public func makeIterator() -> Iterator {
        Iterator(nodes: nodes, id: head)
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
