import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

#if canImport(Glibc)
    import Glibc
#endif

/// overlayd with `publish` set, through real HTTP, against an endpoint that records what it gets.
@Suite("Service publishing")
struct ServicePublishingTests {
    private func template(_ endpoint: CaptureEndpoint) -> String {
        "http://127.0.0.1:\(endpoint.port)/pub/{channel}"
    }

    /// Each write's new version goes to its channel's URL, in order, with the very JSON that
    /// `GET /overlay` shows for that version (the manual clock does not move between the two).
    @Test func everyVersionGoesToItsChannelAsTheOverlayJSON() throws {
        let endpoint = try CaptureEndpoint()
        try withLiveServer(started: LiveServer { $0.publish = template(endpoint) }) { live throws in
            var expected: [String: [String]] = [:]
            for index in 1...6 {
                for channel in ["ci", "default", "deploy.eu-1"] {
                    #expect(try live.post(channel, "message \(index)") == 202)
                    expected[channel, default: []].append(try live.overlay(channel).text)
                }
            }
            #expect(
                try live.request(
                    "PUT", "/channels/ci/orientation", headers: [("Content-Type", "application/json")],
                    body: #"{"orientation": "landscapeLeft"}"#
                ).status
                    == 200)
            expected["ci"]!.append(try live.overlay("ci").text)
            #expect(eventually { endpoint.requests.count == 19 })
            for (channel, overlays) in expected {
                let received = endpoint.requests.filter { $0.path == "/pub/\(channel)" }
                #expect(received.map(\.text) == overlays, "channel \(channel)")
                #expect(received.allSatisfy { $0.header("X-EventSource-Event") == "overlay" })
                #expect(received.allSatisfy { $0.header("Content-Type") == "application/json" })
            }
            let versions = endpoint.requests.filter { $0.path == "/pub/ci" }.compactMap { version(ofJSON: $0.text) }
            #expect(versions == Array(1...7))
            // The endpoint records a request before it answers; the counts follow the answer.
            #expect(eventually { (try? live.metrics())?["overlayd_publish_published_total"] == 19 })
            #expect(try live.metrics()["overlayd_publish_up"] == 1)
            #expect(try live.metrics()["overlayd_publish_queue_depth"] == 0)
        }
    }

    /// A timer's version (the manual clock reaching the end of a slide-in) is published too.
    @Test func aDeadlinesVersionIsPublished() throws {
        let endpoint = try CaptureEndpoint()
        try withLiveServer(started: LiveServer { $0.publish = template(endpoint) }) { live throws in
            #expect(try live.post("ci", "sending", immediate: false) == 202)
            #expect(try live.post("/clock", json: #"{"advance": 0.3}"#).status == 200)
            #expect(eventually { endpoint.requests.count == 2 })
            let phases = endpoint.requests.map { $0.text.contains(#""phase":"showing""#) }
            #expect(phases == [true, false])
            #expect(endpoint.requests.last?.text == (try live.overlay("ci").text))
        }
    }

    /// The endpoint holds the first request unanswered: every write is still answered at once,
    /// and once the endpoint answers, the channel's current version goes out.
    @Test func writesDoNotWaitForTheEndpoint() throws {
        let endpoint = try CaptureEndpoint(answer: .hold)
        try withLiveServer(started: LiveServer { $0.publish = template(endpoint) }) { live throws in
            #expect(try live.post("ci", "first") == 202)
            #expect(eventually { endpoint.held == 1 })
            for index in 2...50 {
                #expect(try live.post("ci", "message \(index)") == 202)
            }
            // All answered while the first request still hangs.
            #expect(endpoint.held == 1)
            #expect(endpoint.requests.count == 1)
            #expect(try live.metrics()["overlayd_publish_queue_depth"] == 16)
            endpoint.answer(.status(201))
            endpoint.release()
            let current = try live.version(of: "ci")
            #expect(eventually { endpoint.requests.last.flatMap { version(ofJSON: $0.text) } == current })
            #expect(try live.metrics()["overlayd_publish_superseded_total"] == Double(50 - 1 - 16))
        }
    }

    /// A dead endpoint: writes are answered, the failures are counted, and the versions wait.
    @Test func aDeadEndpointIsCountedNotWaitedFor() throws {
        let (socket, port) = try Loopback.refusingPort()
        defer { close(socket) }
        try withLiveServer(started: LiveServer { $0.publish = "http://127.0.0.1:\(port)/pub/{channel}" }) {
            live throws in
            for index in 1...20 {
                #expect(try live.post("a", "a\(index)") == 202)
                #expect(try live.post("b", "b\(index)") == 202)
            }
            #expect(eventually { (try? live.metrics())?["overlayd_publish_failed_total"] ?? 0 >= 2 })
            #expect(try live.metrics()["overlayd_publish_up"] == 0)
            #expect(try live.metrics()["overlayd_publish_published_total"] == 0)
            // While failing, each channel keeps only its newest version.
            #expect(try live.metrics()["overlayd_publish_queue_depth"] ?? 99 <= 2)
        }
    }

    /// After a restart on the same data directory every stored channel is published at its new
    /// version, without waiting for its next change.
    @Test func aRestartPublishesEveryStoredChannel() throws {
        let directory = try TemporaryDirectory()
        let endpoint = try CaptureEndpoint()
        var before: [String: Int] = [:]
        do {
            try withLiveServer(
                started: LiveServer {
                    $0.publish = nil
                    $0.store(in: directory)
                }
            ) { live throws in
                for channel in ["a", "b", "c"] {
                    #expect(try live.post(channel, "kept") == 202)
                    before[channel] = try live.version(of: channel)
                }
            }
        }
        #expect(endpoint.requests.isEmpty)
        try withLiveServer(
            started: LiveServer {
                $0.publish = template(endpoint)
                $0.store(in: directory)
            }
        ) { live throws in
            #expect(eventually { Set(endpoint.requests.map(\.path)).isSuperset(of: ["/pub/a", "/pub/b", "/pub/c"]) })
            for channel in ["a", "b", "c"] {
                let published = endpoint.requests.filter { $0.path == "/pub/\(channel)" }.compactMap {
                    version(ofJSON: $0.text)
                }
                #expect(published == [try live.version(of: channel)])
                #expect(published.first ?? 0 > before[channel]!)
                #expect(
                    endpoint.requests.first { $0.path == "/pub/\(channel)" }?.text.contains(#""text":"kept""#) == true)
            }
        }
    }

    @Test func withoutPublishNothingIsSentAndNoMetricShows() throws {
        try withLiveServer { live throws in
            #expect(try live.post("ci", "hello") == 202)
            let metrics = try live.request("GET", "/metrics").text
            #expect(!metrics.contains("overlayd_publish"))
            #expect(metrics.contains("overlayd_messages_posted_total 1"))
        }
    }
}
