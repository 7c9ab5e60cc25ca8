import Platform
import TestSupport
import Testing

@testable import MicroHTTP

/// What the server keeps per thread so that its pool threads do not write the same cache lines:
/// each thread's shard, counters summed over shards, and the slot tables of suspended responders.
@Suite("Per-thread state")
struct PerThreadStateTests {
    /// A thread keeps its shard for life; every shard is in range; threads that ask one after
    /// another get different shards. (Not all different: other tests' threads, running beside
    /// these, take numbers in between.)
    @Test func aThreadKeepsItsShard() {
        let seen = Lock<[Int]>([])
        onThreads(ThreadShard.count) { _ in
            let first = ThreadShard.current
            for _ in 0..<1000 where ThreadShard.current != first { preconditionFailure("shard changed") }
            seen.withLock { $0.append(first) }
        }
        let shards = seen.withLock { $0 }
        #expect(shards.count == ThreadShard.count)
        #expect(shards.allSatisfy { (0..<ThreadShard.count).contains($0) })
        #expect(Set(shards).count > 1)
        #expect(ThreadShard.current == ThreadShard.current)
    }

    /// Additions from many threads at once, to several counters, add up exactly once they are over.
    @Test func countersAddUpAcrossThreads() {
        let counters = ShardedCounters(count: 3)
        onThreads(12) { index in
            for _ in 0..<10_000 {
                counters.add(1)
                counters.add(2, to: 2)
            }
            counters.add(-index, to: 1)
        }
        #expect(counters.value() == 120_000)
        #expect(counters.value(2) == 240_000)
        #expect(counters.value(1) == -(0..<12).reduce(0, +))
    }

    /// A set large enough to be mapped from the kernel (the duration histogram's) starts at zero
    /// everywhere and adds up as a small one does, its first and last counters included.
    @Test func aMappedSetCountsAsASmallOne() {
        let count = 3000
        #expect(count * 8 * ThreadShard.count >= ShardedCounters.mappedBytes)
        let counters = ShardedCounters(count: count)
        #expect((0..<count).allSatisfy { counters.value($0) == 0 })
        onThreads(6) { index in
            for round in 0..<2000 {
                counters.add(1, to: round % count)
                counters.add(1, to: count - 1)
            }
            counters.add(index, to: 0)
        }
        #expect(counters.value(0) == 6 + (0..<6).reduce(0, +))
        #expect(counters.value(1999) == 6)
        #expect(counters.value(2000) == 0)
        #expect(counters.value(count - 1) == 12_000)
    }

    /// A slot table hands out slots, reuses the freed ones first, and lists what it holds.
    @Test func slotTableReusesFreedSlots() {
        var table = SlotTable<String>()
        let a = table.insert("a")
        let b = table.insert("b")
        let c = table.insert("c")
        #expect([a, b, c] == [0, 1, 2])
        table.remove(at: b)
        #expect(table.count == 2)
        #expect(table.elements == ["a", "c"])
        let d = table.insert("d")
        #expect(d == b)
        #expect(table.elements == ["a", "d", "c"])
        table.remove(at: a)
        table.remove(at: c)
        table.remove(at: d)
        #expect(table.count == 0)
        #expect(table.elements.isEmpty)
    }
}
