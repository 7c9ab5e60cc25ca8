import Platform

/// Responses sent, by status, counted by the server as each request completes: on the pool
/// thread that served it, in that thread's own counters (`ShardedCounters`).
public final class ResponseCounts: Sendable {
    /// Status 0 (the request ended with nothing sent), then 100…599.
    private let counters = ShardedCounters(count: 501)

    public init() {}

    /// The statuses that can be counted: 0 and 100…599 (any other counts as 0).
    public static let statuses = [0] + Array(100...599)

    func count(status: Int, shard: Int) {
        counters.add(1, to: Self.index(of: status), shard: shard)
    }

    /// How many responses had `status` so far.
    public func value(status: Int) -> Int {
        counters.value(Self.index(of: status))
    }

    private static func index(of status: Int) -> Int {
        (100...599).contains(status) ? status - 99 : 0
    }
}
