/// Values in numbered slots: insert and remove in constant time without hashing, a freed slot
/// reused by the next insert.
struct SlotTable<Element> {
    private var slots: [Element?] = []
    private var free: [Int] = []
    private(set) var count = 0

    /// Stores `element` and returns its slot.
    mutating func insert(_ element: Element) -> Int {
        count += 1
        if let slot = free.popLast() {
            slots[slot] = element
            return slot
        }
        slots.append(element)
        return slots.count - 1
    }

    /// Empties `slot`, which `insert` returned and nothing has removed since.
    mutating func remove(at slot: Int) {
        precondition(slots[slot] != nil, "slot \(slot) is empty")
        slots[slot] = nil
        free.append(slot)
        count -= 1
    }

    var elements: [Element] { slots.compactMap { $0 } }
}
