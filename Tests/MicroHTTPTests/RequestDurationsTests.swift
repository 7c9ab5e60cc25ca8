import Platform
import TestSupport
import Testing

@testable import MicroHTTP

/// The duration histogram's arithmetic: which bucket a duration lands in (a bound is its own
/// bucket's, as Prometheus's `le` says), cumulative counts, the sum, and the labels a request
/// cannot multiply (an unknown method, a route out of range).
@Suite("Request durations")
struct RequestDurationsTests {
    @Test func aDurationOnABoundCountsInThatBucket() {
        let durations = RequestDurations(routes: ["unmatched", "/overlay"])
        let shard = ThreadShard.current
        // 50 µs exactly, one nanosecond over, 1 s exactly, over a second, and no time at all.
        for nanoseconds: Int64 in [50_000, 50_001, 1_000_000_000, 3_000_000_000, 0] {
            durations.record(nanoseconds, route: 1, method: RequestDurations.index(of: "GET"), shard: shard)
        }
        let series = durations.series(route: 1, method: 0)
        #expect(series.buckets.count == RequestDurations.bounds.count + 1)
        #expect(series.buckets[0] == 2)  // le 0.00005: 0 and 50 µs
        #expect(series.buckets[1] == 3)  // le 0.0001: and 50.001 µs
        #expect(series.buckets[RequestDurations.bounds.count - 1] == 4)  // le 1: and 1 s
        #expect(series.buckets.last == 5)  // +Inf: and 3 s
        #expect(series.count == 5)
        #expect(series.buckets == series.buckets.sorted(), "cumulative buckets never fall")
        #expect(abs(series.sum - 4.000100001) < 1e-9)
        // Nothing leaked into another series.
        #expect(durations.series(route: 0, method: 0).count == 0)
        #expect(durations.series(route: 1, method: 1).count == 0)
    }

    /// The comparisons that find a bucket agree with the `le` labels, on each bound and just past it.
    @Test func theBucketsComparisonsAreTheLabelsBounds() throws {
        for (index, label) in RequestDurations.bounds.enumerated() {
            let nanoseconds = Int64((try #require(Double(label)) * 1e9).rounded())
            #expect(RequestDurations.bucket(of: nanoseconds) == index, "le=\(label)")
            #expect(RequestDurations.bucket(of: nanoseconds + 1) == index + 1, "just past le=\(label)")
        }
        #expect(RequestDurations.bucket(of: -5) == 0)
        #expect(RequestDurations.bucket(of: .max) == RequestDurations.bounds.count)
    }

    @Test func methodsOutsideTheListCountAsOther() {
        let durations = RequestDurations(routes: ["unmatched"])
        let shard = ThreadShard.current
        for method in ["BREW", "get", "", "GETX", "PROPFIND"] {
            durations.record(1000, route: 0, method: RequestDurations.index(of: method), shard: shard)
        }
        durations.record(1000, route: 0, method: RequestDurations.index(of: "DELETE"), shard: shard)
        let other = RequestDurations.methods.firstIndex(of: "other")!
        #expect(durations.series(route: 0, method: other).count == 5)
        #expect(durations.series(route: 0, method: RequestDurations.methods.firstIndex(of: "DELETE")!).count == 1)
        #expect(durations.series(route: 0, method: 0).count == 0)
        for (index, name) in RequestDurations.methods.enumerated() where name != "other" {
            #expect(RequestDurations.index(of: name) == index)
        }
    }

    /// A route no table has (a negative or too large label) counts under route 0, never elsewhere.
    @Test func aRouteOutOfRangeCountsUnderTheFirst() {
        let durations = RequestDurations(routes: ["unmatched", "/a"])
        let shard = ThreadShard.current
        durations.record(1000, route: 2, method: RequestDurations.index(of: "GET"), shard: shard)
        durations.record(1000, route: -1, method: RequestDurations.index(of: "GET"), shard: shard)
        #expect(durations.series(route: 0, method: 0).count == 2)
        #expect(durations.series(route: 1, method: 0).count == 0)
        // Likewise a method index out of range counts as `other`.
        durations.record(1000, route: 1, method: 99, shard: shard)
        durations.record(1000, route: 1, method: -1, shard: shard)
        #expect(durations.series(route: 1, method: RequestDurations.methods.count - 1).count == 2)
    }

    /// Many threads recording at once lose nothing: each adds in its own shard.
    @Test func threadsRecordingAtOnceLoseNothing() {
        let durations = RequestDurations(routes: ["unmatched", "/a"])
        onThreads(4) { thread in
            let shard = ThreadShard.current
            for index in 0..<10_000 {
                durations.record(
                    Int64(index % 3) * 300_000, route: 1,
                    method: RequestDurations.index(of: thread % 2 == 0 ? "GET" : "POST"), shard: shard)
            }
        }
        let get = durations.series(route: 1, method: 0)
        let post = durations.series(route: 1, method: 2)
        #expect(get.count == 20_000)
        #expect(post.count == 20_000)
        // 0 and 300 µs and 600 µs in turn: le 0.00005 has the zeros, le 0.0005 the 300 µs too.
        #expect(get.buckets[0] == 3334 * 2)
        #expect(get.buckets[3] == (3334 + 3333) * 2)
        #expect(get.buckets[4] == 20_000)
    }
}
