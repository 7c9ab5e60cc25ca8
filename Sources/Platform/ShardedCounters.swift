import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A fixed set of counters that many threads add to and few read: each thread adds to its own
/// shard's copy (`ThreadShard`), a read sums the shards. Each shard's copies start on a cache line
/// of their own, so two threads counting the same thing never write the same line.
///
/// A read is not a snapshot: additions made while it sums may be in it or not. Each counter's
/// total is exact once the additions are over.
public final class ShardedCounters: @unchecked Sendable {
    /// How many counters each shard holds.
    public let count: Int
    /// Counters per shard, rounded up to whole cache lines.
    private let stride: Int
    private let base: UnsafeMutablePointer<Atomic<Int>>
    /// The bytes mapped from the kernel, or 0 when allocated from the heap (see `init`).
    private let mapped: Int

    /// Sets this large or larger are mapped rather than allocated: 16 KiB.
    public static let mappedBytes = 16 << 10

    public init(count: Int) {
        precondition(count > 0, "no counters")
        let perLine = 64 / MemoryLayout<Atomic<Int>>.stride
        self.count = count
        stride = (count + perLine - 1) / perLine * perLine
        let total = stride * ThreadShard.count
        let bytes = total * MemoryLayout<Atomic<Int>>.stride
        // A large set (the duration histogram's, 180 KB) is mapped zero-filled from the kernel,
        // whose pages take memory only once written: the shards of threads that never count,
        // and the series nothing reached, cost none. A zero `Atomic<Int>` is all zero bits.
        if bytes >= Self.mappedBytes,
            let pages = mmap(nil, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0),
            pages != MAP_FAILED
        {
            mapped = bytes
            base = pages.bindMemory(to: Atomic<Int>.self, capacity: total)
        } else {
            mapped = 0
            base = UnsafeMutableRawPointer.allocate(byteCount: bytes, alignment: 64)
                .bindMemory(to: Atomic<Int>.self, capacity: total)
            for index in 0..<total { (base + index).initialize(to: Atomic(0)) }
        }
    }

    deinit {
        if mapped > 0 {
            munmap(UnsafeMutableRawPointer(base), mapped)
        } else {
            base.deinitialize(count: stride * ThreadShard.count)
            UnsafeMutableRawPointer(base).deallocate()
        }
    }

    /// Adds `amount` (negative to take away) to counter `index`, in the calling thread's shard.
    @inline(__always)
    public func add(_ amount: Int, to index: Int = 0) {
        add(amount, to: index, shard: ThreadShard.current)
    }

    /// Adds to counter `index` in `shard`: the calling thread's (`ThreadShard.current`), kept by a
    /// caller that counts often from one thread.
    @inline(__always)
    public func add(_ amount: Int, to index: Int = 0, shard: Int) {
        precondition(index >= 0 && index < count && shard >= 0 && shard < ThreadShard.count, "no such counter")
        base[shard &* stride &+ index].add(amount, ordering: .relaxed)
    }

    /// Counter `index`: the sum over the shards.
    public func value(_ index: Int = 0) -> Int {
        precondition(index >= 0 && index < count, "no such counter")
        var sum = 0
        for shard in 0..<ThreadShard.count { sum &+= base[shard * stride + index].load(ordering: .relaxed) }
        return sum
    }
}
