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
    /// (`RequestLabels.route`, returned by the handler) counts under route 0.
    public let routes: [String]
    /// Per series: one counter per bucket (not cumulative: one addition per request), then the
    /// sum of the durations in nanoseconds. The count is the buckets' sum.
    private let counters: ShardedCounters
    /// `routes.count`, kept as a number: reading an array on the hot path retains its buffer.
    private let routeCount: Int
    /// Counters per series: 15 buckets (the last `+Inf`), then the sum.
    private static let perSeries = 16
    private static let sumOffset = 15
    static let methodCount = 8

    /// The methods counted by name; any other counts as `other`, so that a client cannot add series.
    public static let methods = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS", "other"]

    /// The buckets' upper bounds as Prometheus's `le` labels spell them (seconds), without `+Inf`.
    public static let bounds = [
        "0.00005", "0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1",
        "0.25", "0.5", "1",
    ]

    public init(routes: [String]) {
        precondition(!routes.isEmpty, "no route to count under")
        precondition(Self.bounds.count + 1 == Self.sumOffset && Self.methods.count == Self.methodCount)
        self.routes = routes
        routeCount = routes.count
        counters = ShardedCounters(count: routes.count * Self.methodCount * Self.perSeries)
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
        let base = (route * Self.methodCount + method) * Self.perSeries
        var buckets: [Int] = []
        var total = 0
        for bucket in 0..<Self.sumOffset {
            total += counters.value(base + bucket)
            buckets.append(total)
        }
        return Series(buckets: buckets, sum: Double(counters.value(base + Self.sumOffset)) / 1e9)
    }

    /// Counts one request of `route` and `method` (an index into `methods`, `index(of:)`) that
    /// took `duration` nanoseconds, in `shard`'s counters.
    @inline(__always)
    func record(_ duration: Int64, route: Int, method: Int, shard: Int) {
        let route = route >= 0 && route < routeCount ? route : 0
        let method = method >= 0 && method < Self.methodCount ? method : Self.methodCount - 1
        let base = (route * Self.methodCount + method) * Self.perSeries
        counters.add(1, to: base + Self.bucket(of: duration), shard: shard)
        counters.add(Int(max(0, duration)), to: base + Self.sumOffset, shard: shard)
    }

    /// The bucket of a duration in nanoseconds: the first of `bounds` it does not pass, 14 for
    /// `+Inf`. Comparisons, not a table: every pool thread reading one array would retain its
    /// buffer, a shared cache line (docs/ARCHITECTURE.md, hot-path rules).
    @inline(__always)
    static func bucket(of duration: Int64) -> Int {
        switch duration {
        case ...50_000: 0
        case ...100_000: 1
        case ...250_000: 2
        case ...500_000: 3
        case ...1_000_000: 4
        case ...2_500_000: 5
        case ...5_000_000: 6
        case ...10_000_000: 7
        case ...25_000_000: 8
        case ...50_000_000: 9
        case ...100_000_000: 10
        case ...250_000_000: 11
        case ...500_000_000: 12
        case ...1_000_000_000: 13
        default: 14
        }
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
