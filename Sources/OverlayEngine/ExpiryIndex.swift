/// When the waiting messages that may expire do: a binary min-heap of (time, id), so that the
/// earliest is read in constant time and a message joining costs a logarithm, at any depth.
///
/// Entries are never taken out when their message leaves the queue or changes its `expires`:
/// `prune` drops the ones at the top that no longer match their message, and the heap is rebuilt
/// when stale entries outnumber the messages. It is derived from the queue, so two engines with
/// the same queue are equal whatever their heaps hold.
struct ExpiryIndex: Hashable, Sendable {
    private struct Entry: Sendable {
        var time: Instant
        var id: Int64

        func precedes(_ other: Entry) -> Bool { (time, id) < (other.time, other.id) }
    }

    private var heap: [Entry] = []

    /// The earliest entry, which may be stale until `prune` has run.
    var earliest: (time: Instant, id: Int64)? { heap.first.map { ($0.time, $0.id) } }

    mutating func add(id: Int64, at time: Instant) {
        heap.append(Entry(time: time, id: id))
        siftUp(heap.count - 1)
    }

    /// Drops the stale entries at the top: those whose message is not queued, or expires at
    /// another time. Rebuilds the heap from `queue` when it holds more than twice what is live.
    mutating func prune(_ queue: MessageQueue) {
        while let top = heap.first, queue[id: top.id]?.expiresAt != top.time {
            removeTop()
        }
        if heap.count > 64 && heap.count > 2 * queue.count {
            heap = []
            for message in queue {
                if let time = message.expiresAt { add(id: message.id, at: time) }
            }
        }
    }

    private mutating func removeTop() {
        heap.swapAt(0, heap.count - 1)
        heap.removeLast()
        siftDown(0)
    }

    private mutating func siftUp(_ index: Int) {
        var child = index
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { return }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func siftDown(_ index: Int) {
        var parent = index
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var first = parent
            if left < heap.count, heap[left].precedes(heap[first]) { first = left }
            if right < heap.count, heap[right].precedes(heap[first]) { first = right }
            guard first != parent else { return }
            heap.swapAt(parent, first)
            parent = first
        }
    }

    static func == (_: ExpiryIndex, _: ExpiryIndex) -> Bool { true }
    func hash(into _: inout Hasher) {}
}
