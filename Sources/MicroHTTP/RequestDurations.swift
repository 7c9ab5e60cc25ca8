import Platform

/// How long requests took, by route and method, in fixed buckets (a Prometheus histogram):
/// recorded by the server on the pool thread that served each request, in that thread's own
/// counters (`ShardedCounters`), as `ResponseCounts` is.
///
/// A request's duration runs from its request line's arrival (the first the server sees of it)
/// to the moment its answer is queued on the connection: the handler, a long-poll's wait and a
/// write's commit are in it; sending the body is not. A request that ends without an answer
/// queued (its client left first) is not recorded.
public final class RequestDurations: Sendable {
    /// The routes' labels, as the application names them; a request its handler did not label
    /// (`HTTPResponder.label(route:)`) counts under route 0.
    public let routes: [String]
    /// Per series: one counter per bucket (not cumulative: one addition per request), then the
    /// sum of the durations in nanoseconds. The count is the buckets' sum.
    private let counters: ShardedCounters
    private static let perSeries = bounds.count + 2

    /// The methods counted by name; any other counts as `other`, so that a client cannot add series.
    public static let methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "other"]

    /// The buckets' upper bounds as Prometheus's `le` labels spell them (seconds), without `+Inf`.
    public static let bounds = [
        "0.00005", "0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1",
        "0.25", "0.5", "1",
    ]
    /// The same bounds in nanoseconds, what a duration is compared with.
    private static let nanoseconds: [Int64] = [
        50_000, 100_000, 250_000, 500_000, 1_000_000, 2_500_000, 5_000_000, 10_000_000, 25_000_000,
        50_000_000, 100_000_000, 250_000_000, 500_000_000, 1_000_000_000,
    ]

    public init(routes: [String]) {
        precondition(!routes.isEmpty, "no route to count under")
        self.routes = routes
        counters = ShardedCounters(count: routes.count * Self.methods.count * Self.perSeries)
    }

    /// What one route and method's series holds so far.
    public struct Series: Sendable, Equatable {
        /// Requests at or under each of `bounds`, then all of them (`+Inf`): cumulative.
        public var buckets: [Int]
        public var count: Int { buckets.last ?? 0 }
        /// The durations' sum, in seconds.
        public var sum: Double
    }

    /// The series of `route` (an index into `routes`) and `method` (into `methods`).
    public func series(route: Int, method: Int) -> Series {
        let base = (route * Self.methods.count + method) * Self.perSeries
        var buckets: [Int] = []
        var total = 0
        for bucket in 0...Self.bounds.count {
            total += counters.value(base + bucket)
            buckets.append(total)
        }
        return Series(buckets: buckets, sum: Double(counters.value(base + Self.bounds.count + 1)) / 1e9)
    }

    /// Counts one request of `route` and `method` (as sent) that took `duration` nanoseconds, in
    /// `shard`'s counters.
    @inline(__always)
    func record(_ duration: Int64, route: Int, method: String, shard: Int) {
        let route = route >= 0 && route < routes.count ? route : 0
        var bucket = 0
        while bucket < Self.nanoseconds.count && duration > Self.nanoseconds[bucket] { bucket += 1 }
        let base = (route * Self.methods.count + Self.index(of: method)) * Self.perSeries
        counters.add(1, to: base + bucket, shard: shard)
        counters.add(Int(max(0, duration)), to: base + Self.bounds.count + 1, shard: shard)
    }

    /// The method's place in `methods`: a few comparisons of short strings.
    @inline(__always)
    static func index(of method: String) -> Int {
        switch method {
        case "GET": 0
        case "HEAD": 1
        case "POST": 2
        case "PUT": 3
        case "PATCH": 4
        case "DELETE": 5
        case "OPTIONS": 6
        default: 7
        }
    }
}
