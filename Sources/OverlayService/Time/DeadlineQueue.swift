/// At most one deadline per key, earliest first: what `DeadlineScheduler` sleeps on, without its
/// thread or clock, so that ordering, replacement and cancellation are tested with plain numbers.
///
/// A binary heap with lazy deletion. Scheduling pushes an entry stamped with a new generation and
/// records it as the key's current one; replacing or cancelling a key only changes that record,
/// and heap entries whose generation is no longer current are dropped when they reach the top.
/// Scheduling costs O(log n) and finding the earliest amortised O(log n), whatever the number of
/// keys; when stale entries outnumber live ones the heap is rebuilt, so it stays O(live keys).
struct DeadlineQueue<Key: Hashable, Payload> {
    fileprivate struct Current {
        var deadline: Int64
        var generation: UInt64
        var payload: Payload
    }

    fileprivate struct HeapEntry {
        var deadline: Int64
        /// Also the tie-break: of two equal deadlines, the one scheduled first comes first.
        var generation: UInt64
        var key: Key

        func precedes(_ other: HeapEntry) -> Bool {
            (deadline, generation) < (other.deadline, other.generation)
        }
    }

    private var current: [Key: Current] = [:]
    /// The newest generation handed over for each key scheduled with one.
    private var newest: [Key: UInt64] = [:]
    private var heap: [HeapEntry] = []
    private var generations: UInt64 = 0

    /// Live deadlines.
    var count: Int { current.count }

    /// Heap entries, stale ones included (for tests of the rebuild).
    var storedEntries: Int { heap.count }

    /// Sets `key`'s deadline, replacing the one it had. Returns whether it is now the earliest of
    /// all, which is when a thread sleeping until the earliest must wake.
    @discardableResult
    mutating func schedule(_ key: Key, at deadline: Int64, _ payload: Payload) -> Bool {
        let earliestBefore = earliest
        generations += 1
        current[key] = Current(deadline: deadline, generation: generations, payload: payload)
        push(HeapEntry(deadline: deadline, generation: generations, key: key))
        if heap.count > 2 * current.count + 32 { rebuild() }
        dropStaleTop()
        return earliestBefore.map { deadline < $0 } ?? true
    }

    /// `schedule`, or `cancel` for a nil deadline, for a key whose owner stamps each handover with
    /// a growing generation: one older than the newest the key was handed is ignored, so that two
    /// handovers made on two threads keep the later decision whatever order they arrive in.
    /// Returns whether the key's deadline is now the earliest of all.
    @discardableResult
    mutating func schedule(_ key: Key, at deadline: Int64?, generation: UInt64, _ payload: Payload) -> Bool {
        if let seen = newest[key], seen >= generation { return false }
        newest[key] = generation
        guard let deadline else {
            cancel(key)
            return false
        }
        return schedule(key, at: deadline, payload)
    }

    /// Removes `key`'s deadline and the newest generation it was handed: for a key that will not
    /// be scheduled again, so that keys of owners long gone take no room.
    mutating func forget(_ key: Key) {
        newest[key] = nil
        cancel(key)
    }

    /// Keys whose handover order is kept (for tests of `forget`).
    var orderedKeys: Int { newest.count }

    /// Removes `key`'s deadline, if it has one.
    mutating func cancel(_ key: Key) {
        current[key] = nil
        dropStaleTop()
    }

    /// The deadline of `key`, if it has one.
    func deadline(of key: Key) -> Int64? {
        current[key]?.deadline
    }

    /// The earliest live deadline. (Every mutation leaves a live entry on top.)
    var earliest: Int64? { heap.first?.deadline }

    /// Removes the earliest deadline if it is at or before `now`, and returns its key and payload.
    mutating func popDue(now: Int64) -> (key: Key, payload: Payload)? {
        guard let top = heap.first, top.deadline <= now else { return nil }
        popTop()
        let due = current.removeValue(forKey: top.key)
        dropStaleTop()
        return due.map { (top.key, $0.payload) }
    }

    /// Removes every deadline and returns their payloads.
    mutating func removeAll() -> [Payload] {
        defer {
            current = [:]
            heap = []
        }
        return current.values.map(\.payload)
    }

    // MARK: - The heap

    private func isLive(_ entry: HeapEntry) -> Bool {
        current[entry.key]?.generation == entry.generation
    }

    private mutating func dropStaleTop() {
        while let top = heap.first, !isLive(top) { popTop() }
    }

    private mutating func push(_ entry: HeapEntry) {
        heap.append(entry)
        var child = heap.count - 1
        while child > 0 {
            let parent = (child - 1) / 2
            guard heap[child].precedes(heap[parent]) else { break }
            heap.swapAt(child, parent)
            child = parent
        }
    }

    private mutating func popTop() {
        let last = heap.removeLast()
        guard !heap.isEmpty else { return }
        heap[0] = last
        siftDown(from: 0)
    }

    private mutating func siftDown(from start: Int) {
        var parent = start
        while true {
            let left = 2 * parent + 1
            let right = left + 1
            var first = parent
            if left < heap.count && heap[left].precedes(heap[first]) { first = left }
            if right < heap.count && heap[right].precedes(heap[first]) { first = right }
            guard first != parent else { return }
            heap.swapAt(parent, first)
            parent = first
        }
    }

    /// Keeps only the live entries, in heap order (Floyd's construction, O(n)).
    private mutating func rebuild() {
        heap = current.map { key, entry in HeapEntry(deadline: entry.deadline, generation: entry.generation, key: key) }
        var index = heap.count / 2
        while index > 0 {
            index -= 1
            siftDown(from: index)
        }
    }
}

extension DeadlineQueue: Sendable where Key: Sendable, Payload: Sendable {}
extension DeadlineQueue.Current: Sendable where Key: Sendable, Payload: Sendable {}
extension DeadlineQueue.HeapEntry: Sendable where Key: Sendable, Payload: Sendable {}
