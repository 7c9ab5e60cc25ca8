import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A small number for the calling thread, the same on every call from it, so that threads can
/// keep per-thread copies of what they all update (counters, registries) instead of fighting
/// over one cache line. An atomic that two cores both write moves between them on every write,
/// and a fan-out writes such lines once per reader from every pool thread.
///
/// Threads get numbers in the order they first ask, modulo `count`: the few threads of a server
/// (the pool, the scheduler, the store's writer) each get a shard of their own.
public enum ThreadShard {
    /// How many shards there are.
    public static let count = 8

    /// The calling thread's shard, in `0..<count`.
    @inline(__always)
    public static var current: Int {
        if let stored = pthread_getspecific(shardKey) { return Int(bitPattern: stored) &- 1 }
        return assign()
    }

    private static func assign() -> Int {
        let shard = nextShard.add(1, ordering: .relaxed).oldValue % count
        pthread_setspecific(shardKey, UnsafeRawPointer(bitPattern: shard + 1))
        return shard
    }
}

/// The key of each thread's shard (stored plus one: an unset key reads as nil).
private let shardKey: pthread_key_t = {
    var key = pthread_key_t()
    precondition(pthread_key_create(&key, nil) == 0, "no thread-specific key left")
    return key
}()

private let nextShard = Atomic<Int>(0)
