/// One object per thread shard (`ThreadShard`), for state every thread updates: each thread works
/// on its own shard's object and its own lock.
///
/// A shard's object should keep its hot fields off its neighbours' cache lines (a padding field):
/// the objects are allocated one after another.
public struct ThreadShards<Shard: AnyObject & Sendable>: Sendable {
    private let shards: [Shard]
    /// The same objects, reached without a retain and a release of each: every thread reaches its
    /// own on every request, and a reference count is a cache line they all would write.
    private let unretained: [Unmanaged<Shard>]

    public init(_ make: () -> Shard) {
        shards = (0..<ThreadShard.count).map { _ in make() }
        unretained = shards.map { Unmanaged.passUnretained($0) }
    }

    /// Runs `body` on shard `index`'s object (`ThreadShard.current`, or one a caller kept).
    @inline(__always)
    public func with<Result>(_ index: Int, _ body: (Shard) -> Result) -> Result {
        unretained[index]._withUnsafeGuaranteedRef(body)
    }

    /// Every shard's object.
    public var all: [Shard] { shards }
}
