/// One object per thread shard (`ThreadShard`), for state every thread updates: each thread works
/// on its own shard's object and its own lock.
///
/// A shard's object should keep its hot fields off its neighbours' cache lines (a padding field):
/// the objects are allocated one after another.
public struct ThreadShards<Shard: AnyObject & Sendable>: Sendable {
    private let shards: [Shard]

    public init(_ make: () -> Shard) {
        shards = (0..<ThreadShard.count).map { _ in make() }
    }

    /// Runs `body` on shard `index`'s object (`ThreadShard.current`, or one a caller kept).
    @inline(__always)
    public func with<Result>(_ index: Int, _ body: (Shard) -> Result) -> Result {
        body(shards[index])
    }

    /// Every shard's object.
    public var all: [Shard] { shards }
}
