import Platform

/// The responders waiting with a suspended connection, which the server may have to end from
/// outside their connection's thread: answered 503 when the server stops, 499 when the sweep
/// finds their client gone. (Event streams are the `StreamRegistry`'s.)
///
/// Kept per thread (`ThreadShard`) in slot tables: a connection is suspended, answered and
/// completed on the one pool thread that owns it, so listing and unlisting take that thread's own
/// lock and touch no hash table, while a fan-out answers thousands of them from every pool thread
/// (docs/ARCHITECTURE.md, hot-path rules).
final class ParkedRequests: Sendable {
    /// Where a responder is listed.
    struct Ticket: Equatable {
        let shard: Int
        let slot: Int
    }

    private final class Shard: Sendable {
        /// Unretained: a responder is unlisted before the server lets go of it (at its answer, or
        /// at its completion), so listing costs no reference count.
        let responders = Lock(SlotTable<Unmanaged<HTTPResponder>>())
        /// Keeps the next shard's locks off this one's cache line.
        private let padding: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
    }

    private let shards = ThreadShards { Shard() }

    /// Lists `responder` in `shard`: the calling thread's (`ThreadShard.current`).
    func list(_ responder: HTTPResponder, shard: Int) -> Ticket {
        let slot = shards.with(shard) { $0.responders.withLock { $0.insert(Unmanaged.passUnretained(responder)) } }
        return Ticket(shard: shard, slot: slot)
    }

    func unlist(responder ticket: Ticket) {
        shards.with(ticket.shard) { $0.responders.withLock { $0.remove(at: ticket.slot) } }
    }

    /// Every responder listed now.
    var responders: [HTTPResponder] {
        // Retained under the lock, while each is still listed and so still alive.
        shards.all.flatMap { shard in shard.responders.withLock { $0.elements.map { $0.takeUnretainedValue() } } }
    }

    /// Whether no responder is listed.
    var noResponders: Bool {
        shards.all.allSatisfy { shard in shard.responders.withLock { $0.count == 0 } }
    }
}
