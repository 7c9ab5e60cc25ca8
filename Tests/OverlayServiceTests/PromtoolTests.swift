import ServiceTestSupport
import Testing

/// `GET /metrics` as Prometheus itself reads it: `promtool check metrics` (Debian's `prometheus`
/// package) parses the exposition and lints it, after real traffic over loopback; the duration
/// histogram's series are then checked for the counts that traffic must have given them.
@Suite(
    "promtool",
    .enabled(if: Promtool.path != nil || Promtool.isRequired, "needs promtool (apt-get install prometheus)"))
struct PromtoolTests {
    @Test func metricsPassPromtoolWithTheHistogramsCounts() throws {
        try withLiveServer { live in
            for _ in 0..<5 { #expect(try live.get("/overlay").status == 200) }
            #expect(try live.post("/messages", json: #"{"text": "hello"}"#).status == 202)
            #expect(try live.get("/messages/1").status == 200)
            #expect(try live.get("/nowhere").status == 404)
            #expect(try live.request("BREW", "/overlay").status == 405)

            let text = try live.get("/metrics").text
            let check = try Promtool.check(text)
            #expect(check.status == 0, "promtool: \(check.said)")

            let histogram = Histogram(text)
            #expect(histogram.count(route: "/overlay", method: "GET") == 5)
            #expect(histogram.count(route: "/overlay", method: "other") == 1)
            #expect(histogram.count(route: "/messages", method: "POST") == 1)
            #expect(histogram.count(route: "/messages/{id}", method: "GET") == 1)
            #expect(histogram.count(route: "unmatched", method: "GET") == 1)
            for (labels, buckets) in histogram.buckets {
                // Cumulative: never falling, ending at +Inf with the count.
                #expect(buckets.map(\.le) == Histogram.bounds, "\(labels)")
                #expect(buckets.map(\.count) == buckets.map(\.count).sorted(), "\(labels): \(buckets)")
                #expect(buckets.last?.count == histogram.counts[labels], "\(labels)")
                #expect(histogram.sums[labels] != nil, "\(labels) has no _sum")
            }
            #expect(histogram.buckets.count == histogram.counts.count)
        }
    }

    /// A promtool that fails on what a render bug would give, or the check above could pass on
    /// anything: a histogram declared once per series (a second TYPE line for its name) and a
    /// metric without HELP are both refused. (promtool does not check that buckets are cumulative;
    /// the test above does.)
    @Test func promtoolRefusesWhatARenderBugWouldGive() throws {
        let twice = """
            # HELP overlayd_request_duration_seconds Declared twice.
            # TYPE overlayd_request_duration_seconds histogram
            overlayd_request_duration_seconds_bucket{route="/a",le="+Inf"} 1
            overlayd_request_duration_seconds_sum{route="/a"} 0.1
            overlayd_request_duration_seconds_count{route="/a"} 1
            # TYPE overlayd_request_duration_seconds histogram
            overlayd_request_duration_seconds_bucket{route="/b",le="+Inf"} 1
            overlayd_request_duration_seconds_sum{route="/b"} 0.1
            overlayd_request_duration_seconds_count{route="/b"} 1

            """
        let withoutHelp = "# TYPE overlayd_build_info gauge\noverlayd_build_info 1\n"
        for (name, text) in [("twice", twice), ("without HELP", withoutHelp)] {
            let check = try Promtool.check(text)
            #expect(check.status != 0 && check.status != nil, "promtool took \(name): \(check.said)")
        }
    }

    /// The duration histogram's samples in a `GET /metrics` text, by their route and method labels.
    struct Histogram {
        static let bounds = [
            "0.00005", "0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025", "0.05", "0.1",
            "0.25", "0.5", "1", "+Inf",
        ]
        var buckets: [String: [(le: String, count: Double)]] = [:]
        var counts: [String: Double] = [:]
        var sums: [String: Double] = [:]

        init(_ text: String) {
            let name = "overlayd_request_duration_seconds"
            for line in text.split(separator: "\n") where line.hasPrefix(name + "_") {
                guard let open = line.firstIndex(of: "{"), let close = line.lastIndex(of: "}"),
                    let value = Double(line[line.index(close, offsetBy: 2)...])
                else { continue }
                let kind = line[line.index(line.startIndex, offsetBy: name.count + 1)..<open]
                var labels = String(line[line.index(after: open)..<close])
                switch kind {
                case "bucket":
                    // `le` is the last label: what follows `,le="` up to the closing quote.
                    let parts = labels.split(separator: ",le=\"", omittingEmptySubsequences: false)
                    guard parts.count == 2 else { continue }
                    labels = String(parts[0])
                    buckets[labels, default: []].append((String(parts[1].dropLast()), value))
                case "sum": sums[labels] = value
                case "count": counts[labels] = value
                default: continue
                }
            }
        }

        func count(route: String, method: String) -> Double? {
            counts["route=\"\(route)\",method=\"\(method)\""]
        }
    }
}
