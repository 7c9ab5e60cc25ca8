import Platform

/// The one registry of event streams being sent. The server ends them all when it stops, and
/// those whose client left when it sweeps; the application lists each under a group of its own
/// (the service, a channel's) and sends a group's streams their events.
///
/// Kept per thread (`ThreadShard`), as `ParkedRequests` keeps waiting responders: a stream is
/// listed in the shard of the thread that lists it first (its connection's, where the handler
/// runs) and stays in that shard for life. The stream keeps where it is listed, and the end of its
/// connection (`HTTPStream.released`) unlists it: nobody has to be told that a stream is over to
/// keep a list true. A fan-out takes a group's array from each shard as it is, one lock per shard
/// and no retain per stream under it, and sends after the lock (docs/ARCHITECTURE.md, hot-path
/// rules).
public final class StreamRegistry: Sendable {
    /// Where a stream is listed, which the stream keeps from its first listing to its release.
    struct Listing: Sendable {
        let registry: StreamRegistry
        let shard: Int
    }

    private final class Shard: Sendable {
        let table = Lock(StreamTable())
        /// Keeps the next shard's lock off this one's cache line.
        private let padding: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
    }

    private let shards = ThreadShards { Shard() }

    public init() {}

    /// Lists `stream` under `group`: in the calling thread's shard, or, if it is listed already
    /// (by its server, or under another group), moved under `group` in the shard it is in.
    /// Returns false, listing nothing, if the stream is over.
    @discardableResult
    public func list(_ stream: HTTPStream, in group: StreamGroup) -> Bool {
        list(stream, in: group, moving: true, shard: ThreadShard.current)
    }

    /// The server's: a stream whose response is queued is listed in its connection's `shard`,
    /// under no group, unless it is listed already (by its handler, under a group).
    func listIfAbsent(_ stream: HTTPStream, shard: Int) {
        _ = list(stream, in: nil, moving: false, shard: shard)
    }

    private func list(_ stream: HTTPStream, in group: StreamGroup?, moving: Bool, shard: Int) -> Bool {
        guard let listing = stream.list(at: Listing(registry: self, shard: shard)) else { return false }
        guard listing.registry === self else {
            precondition(!moving, "a stream is listed in one registry")
            return true
        }
        shards.with(listing.shard) { $0.table.withLock { $0.list(stream, in: group, moving: moving) } }
        // Released since it was found open: its release may have looked before this listing, so
        // it is taken off again (taking off is idempotent).
        if stream.isReleased { unlist(stream, shard: listing.shard) }
        return true
    }

    /// Takes `stream` off `shard` (its connection ended); nothing if it is not listed there.
    func unlist(_ stream: HTTPStream, shard: Int) {
        shards.with(shard) { $0.table.withLock { $0.remove(stream) } }
    }

    /// Calls `body` with every stream listed under `group`: each shard's array is taken under its
    /// lock as it is and walked after it. A stream listed meanwhile may be missed or not; its
    /// subscriber sends it what it missed (see `Channel.subscribe`).
    ///
    /// The calling thread's own shard comes last. A pool thread writes its streams only when it
    /// is free, so a fan-out from a pool thread hands the other threads their streams first; they
    /// write while it goes on, and its own are written when it returns.
    @inline(__always)
    public func forEach(in group: StreamGroup, _ body: (HTTPStream) -> Void) {
        guard group.count > 0 else { return }
        let own = ThreadShard.current
        for step in 1...ThreadShard.count {
            let streams = shards.with((own + step) % ThreadShard.count) { shard in
                shard.table.withLock { $0.streams(in: group) }
            }
            // Each stream borrowed from the copied list, which holds it for the walk: a retain and
            // a release of each one per event otherwise (bench/instructions --only sse: 3,310
            // instructions a stream event without, 3,232 with; medians of six runs).
            streams.withUnsafeBufferPointer { streams in
                for index in streams.indices {
                    Unmanaged.passUnretained(streams[index])._withUnsafeGuaranteedRef(body)
                }
            }
        }
    }

    /// Every stream listed now, under any group or none: for the server's stop and sweep.
    public var all: [HTTPStream] {
        shards.all.flatMap { shard in shard.table.withLock { $0.all } }
    }

    /// Streams listed now.
    public var count: Int {
        shards.all.reduce(0) { total, shard in total + shard.table.withLock { $0.count } }
    }
}
