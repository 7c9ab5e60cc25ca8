import Platform

/// The responders whose connection is suspended, for the server's stop (each is answered 503) and
/// its sweep (each whose client left is ended).
///
/// Kept per thread (`ThreadShard`) in slot tables: a connection is suspended, answered and
/// completed on the one pool thread that owns it, so listing and unlisting take that thread's own
/// lock and touch no hash table, while a fan-out answers thousands of them from every pool thread
/// (docs/ARCHITECTURE.md, hot-path rules).
final class SuspendedResponders: Sendable {
    /// Where a responder is listed.
    struct Ticket: Equatable {
        let shard: Int
        let slot: Int
    }

    private final class Shard: Sendable {
        /// Unretained: a responder is unlisted before the server lets go of it (at its answer, or
        /// at its completion), so listing costs no reference count.
        let table = Lock(SlotTable<Unmanaged<HTTPResponder>>())
        /// Keeps the next shard's lock off this one's cache line.
        private let padding: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
    }

    private let shards = ThreadShards { Shard() }

    /// Lists `responder` in `shard`: the calling thread's (`ThreadShard.current`).
    func list(_ responder: HTTPResponder, shard: Int) -> Ticket {
        let slot = shards.with(shard) { $0.table.withLock { $0.insert(Unmanaged.passUnretained(responder)) } }
        return Ticket(shard: shard, slot: slot)
    }

    func unlist(_ ticket: Ticket) {
        shards.with(ticket.shard) { $0.table.withLock { $0.remove(at: ticket.slot) } }
    }

    /// Every responder listed now.
    var all: [HTTPResponder] {
        // Retained under the lock, while each is still listed and so still alive.
        shards.all.flatMap { shard in shard.table.withLock { $0.elements.map { $0.takeUnretainedValue() } } }
    }

    var isEmpty: Bool {
        shards.all.allSatisfy { shard in shard.table.withLock { $0.count == 0 } }
    }
}

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
