import OverlayService
import ServiceTestSupport
import TestSupport
import Testing

/// `overlayd_request_duration_seconds` over real HTTP: each request counts under its route
/// table pattern and method, never its own path, and the series are whole histograms. A
/// request's duration is recorded when its answer is queued, before the client reads it, so
/// the counts below are exact once each answer is in.
@Suite("Request duration histogram")
struct RequestDurationTests {
    @Test func requestsCountUnderTheirPatternAndMethod() throws {
        try withLiveServer { live in
            for _ in 0..<3 { #expect(try live.get("/overlay").status == 200) }
            #expect(try live.request("HEAD", "/overlay").status == 200)
            #expect(try live.get("/channels/other/overlay").status == 200)
            #expect(try live.post("/messages", json: #"{"text": "a"}"#).status == 202)
            #expect(try live.get("/messages/1").status == 200)
            #expect(try live.get("/messages/424242").status == 404)
            #expect(try live.get("/nowhere/\"quoted\"").status == 404)
            #expect(try live.get("/channels/../overlay").status == 400)
            #expect(try live.request("BREW", "/overlay").status == 405)
            #expect(try live.request("OPTIONS", "/overlay").status == 204)
            // Refused by the HTTP server before any route: its Content-Length is over the limit.
            let big = String(repeating: "x", count: 17 * 1024)
            #expect(
                try live.request("POST", "/messages", headers: [("Content-Type", "text/plain")], body: big).status
                    == 413)

            let samples = try Self.samples(live)
            func count(_ route: String, _ method: String) -> Double? {
                samples[#"overlayd_request_duration_seconds_count{route="\#(route)",method="\#(method)"}"#]
            }
            // Both channels' /overlay under one label: the channel is not a label of this metric.
            #expect(count("/overlay", "GET") == 4)
            #expect(count("/overlay", "HEAD") == 1)
            #expect(count("/overlay", "other") == 1)
            #expect(count("/overlay", "OPTIONS") == 1)
            #expect(count("/messages", "POST") == 1)
            #expect(count("unmatched", "POST") == 1)
            // Found or not, a message's path counts under its pattern.
            #expect(count("/messages/{id}", "GET") == 2)
            #expect(count("unmatched", "GET") == 2)
            // The raw paths never become labels.
            let names = samples.keys.filter { $0.hasPrefix("overlayd_request_duration_seconds") }
            #expect(!names.contains { $0.contains("424242") || $0.contains("nowhere") || $0.contains("other/") })
            #expect(!names.contains { $0.contains("BREW") })
            // A series is whole: every bucket, +Inf equal to the count, and the sum.
            let labels = #"route="/overlay",method="GET""#
            var last = 0.0
            for bound in [
                "0.00005", "0.0001", "0.00025", "0.0005", "0.001", "0.0025", "0.005", "0.01", "0.025",
                "0.05", "0.1", "0.25", "0.5", "1", "+Inf",
            ] {
                let bucket = try #require(
                    samples[#"overlayd_request_duration_seconds_bucket{\#(labels),le="\#(bound)"}"#])
                #expect(bucket >= last, "le=\(bound) below the bucket before it")
                last = bucket
            }
            #expect(last == 4)
            let sum = try #require(samples["overlayd_request_duration_seconds_sum{\(labels)}"])
            #expect(sum > 0)
        }
    }

    /// A long-poll counts once it is answered, not while it waits: its wait is in its duration.
    @Test func aLongPollCountsWhenItIsAnswered() throws {
        try withLiveServer { live in
            let version = try #require(live.overlay()["version"]?.number)
            let waiter = try StreamClient(port: live.port, path: "/overlay?wait=25&since=\(Int(version))")
            #expect(try eventually { try live.metric("overlayd_long_poll_waiters") == 1 })
            // Parked, not answered: not in the histogram yet (the metric reads above are GET /metrics).
            var samples = try Self.samples(live)
            #expect(samples[#"overlayd_request_duration_seconds_count{route="/overlay",method="GET"}"#] == 1)
            #expect(try live.post("/messages", json: #"{"text": "wake"}"#).status == 202)
            #expect(try waiter.response().status == 200)
            samples = try Self.samples(live)
            #expect(samples[#"overlayd_request_duration_seconds_count{route="/overlay",method="GET"}"#] == 2)
        }
    }

    /// Every sample of `GET /metrics`, by name and labels.
    static func samples(_ live: LiveServer) throws -> [String: Double] { try live.metrics().values }
}
