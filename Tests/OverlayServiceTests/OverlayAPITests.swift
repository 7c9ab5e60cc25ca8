import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

#if canImport(Glibc)
    import Glibc
#endif

/// `/overlay`, `/orientation`, `/healthz`, `/metrics`, `/clock`, `/`, OPTIONS and HEAD through real
/// HTTP on loopback (MODEL §5, §6).
@Suite("Overlay and service API")
struct OverlayAPITests {
    /// A fresh overlay is hidden, with every optional part null, ETag W/"0" and no-cache.
    @Test func hiddenOverlay() throws {
        try withLiveServer { live in
            let response = try live.get("/overlay")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json; charset=utf-8")
            #expect(response.header("ETag") == #"W/"0""#)
            #expect(response.header("Cache-Control") == "no-cache")
            #expect(orderedKeys(response.body) == overlayKeyOrder)
            let expected = try JSONParser.parse(
                Array(
                    """
                    {"version": 0, "now": 0, "phase": "hidden", "orientation": "portrait", "rotation": 0,
                     "device": "ipad", "presentation": "statusBar", "frame": {"x": 0, "y": 0, "width": 768, "height": 20},
                     "contentOffset": -20, "alpha": 0, "message": null, "announcement": null, "announcementVersion": 0,
                     "label": null, "subtitle": null, "outgoing": null, "accessory": null, "pill": null, "style": null,
                     "activity": false, "progressBar": null, "queued": 0, "scheduled": 0, "animation": null,
                     "statusBar": {"style": "lightContent", "hidden": false, "alpha": 1, "offset": 0,
                       "frame": {"x": 0, "y": 0, "width": 768, "height": 20}, "animation": null,
                       "styleFrom": "application", "hiddenFrom": "application"},
                     "held": false, "touch": null}
                    """.utf8))
            #expect(response.json == expected)
        }
    }

    /// Reads of one version at one instant share an answer; a new instant or a new version gets
    /// its own, so sharing never shows a stale overlay with the manual clock.
    @Test func sharedAnswersFollowTheClockAndTheVersion() throws {
        try withLiveServer { live in
            #expect(try live.request("POST", "/messages", body: "first").status == 202)
            try live.advance(0.1)
            let first = try live.get("/overlay")
            let again = try live.get("/overlay")
            #expect(first.json["phase"]?.string == "showing")
            #expect(again.body == first.body)
            #expect(again.header("ETag") == first.header("ETag"))

            // One nanosecond on: a new answer, and the slide has moved.
            try live.advance(0.000_000_001)
            let later = try live.overlay()
            #expect(later["now"]?.number == 0.100_000_001)
            #expect(later["version"] == first.json["version"])
            #expect(later["contentOffset"]?.number != first.json["contentOffset"]?.number)

            // A write at the same instant: the next read shows it, not the shared answer.
            #expect(try live.request("POST", "/messages", body: "second").status == 202)
            let written = try live.overlay()
            #expect(written["queued"]?.int == 1)
            #expect(written["version"]?.int == (later["version"]?.int ?? 0) + 1)
            #expect(written["now"]?.number == 0.100_000_001)
        }
    }

    /// A shown progress message carries its progress bar; numbers are exact.
    @Test func overlayWithProgressBar() throws {
        try withLiveServer { live in
            #expect(
                try live.request("POST", "/messages?kind=progress&progress=0.25", body: "Downloading").status == 202)
            try live.advance(0.25)
            let overlay = try live.overlay()
            #expect(overlay["phase"]?.string == "visible")
            #expect(overlay["contentOffset"]?.number == 0)
            #expect(overlay["animation"]?.isNull == true)
            #expect(overlay["style"]?["background"]?.string == "#007AFF")
            #expect(overlay["activity"]?.bool == false)
            let bar = overlay["progressBar"]
            #expect(bar?["progress"]?.number == 0.25)
            #expect(bar?["position"]?.string == "bottom")
            #expect(bar?["frame"]?["x"]?.number == 0)
            #expect(bar?["frame"]?["y"]?.number == 18)
            #expect(bar?["frame"]?["width"]?.number == 192)
            #expect(bar?["frame"]?["height"]?.number == 2)
        }
    }

    /// If-None-Match with the current version answers 304 without a body; any other version 200.
    @Test func conditionalGet() throws {
        try withLiveServer { live in
            let first = try live.get("/overlay")
            let etag = try #require(first.header("ETag"))

            let notModified = try live.request("GET", "/overlay", headers: [("If-None-Match", etag)])
            #expect(notModified.status == 304)
            #expect(notModified.body.isEmpty)
            #expect(notModified.header("ETag") == etag)
            #expect(notModified.header("Cache-Control") == "no-cache")

            // Weak comparison: the strong form of the same tag, a list naming it, and * match too.
            for header in [#""0""#, #"W/"9", W/"0""#, "*"] {
                #expect(try live.request("GET", "/overlay", headers: [("If-None-Match", header)]).status == 304)
            }

            #expect(try live.request("POST", "/messages", body: "a").status == 202)
            let changed = try live.request("GET", "/overlay", headers: [("If-None-Match", etag)])
            #expect(changed.status == 200)
            #expect(changed.header("ETag") == #"W/"1""#)
            #expect(changed.json["version"]?.int == 1)
            #expect(try live.request("GET", "/overlay", headers: [("If-None-Match", #"W/"1""#)]).status == 304)
            // Interpolated values move with the clock; the version (and so the ETag) does not.
            try live.advance(0.1)
            let moving = try live.request("GET", "/overlay", headers: [("If-None-Match", #"W/"1""#)])
            #expect(moving.status == 304)
        }
    }

    /// HEAD /overlay: the GET's status and headers, no body.
    @Test func headOverlay() throws {
        try withLiveServer { live in
            let get = try live.get("/overlay")
            let head = try live.request("HEAD", "/overlay")
            #expect(head.status == 200)
            #expect(head.body.isEmpty)
            #expect(head.header("ETag") == get.header("ETag"))
            #expect(head.header("Content-Length") == String(get.body.count))
        }
    }

    /// PUT /orientation takes JSON or plain text and answers the overlay with its ETag.
    @Test func putOrientation() throws {
        try withLiveServer { live in
            let left = try live.request(
                "PUT", "/orientation", headers: [("Content-Type", "application/json")],
                body: #"{"orientation": "landscapeLeft"}"#)
            #expect(left.status == 200)
            #expect(orderedKeys(left.body) == overlayKeyOrder)
            #expect(left.json["orientation"]?.string == "landscapeLeft")
            #expect(left.json["rotation"]?.int == -90)
            #expect(left.json["frame"]?["x"]?.number == 0)
            #expect(left.json["frame"]?["width"]?.number == 20)
            #expect(left.json["frame"]?["height"]?.number == 1024)
            #expect(left.json["version"]?.int == 1)
            #expect(left.header("ETag") == #"W/"1""#)

            let right = try live.request(
                "PUT", "/orientation", headers: [("Content-Type", "text/plain")], body: "landscapeRight\n")
            #expect(right.status == 200)
            #expect(right.json["rotation"]?.int == 90)
            #expect(right.json["frame"]?["x"]?.number == 748)
            #expect(right.json["version"]?.int == 2)

            // The same orientation again changes nothing.
            let same = try live.request("PUT", "/orientation", body: "landscapeRight")
            #expect(same.status == 200)
            #expect(same.json["version"]?.int == 2)

            let upsideDown = try live.request("PUT", "/orientation?orientation=portraitUpsideDown")
            #expect(upsideDown.json["rotation"]?.int == 180)
            #expect(upsideDown.json["frame"]?["y"]?.number == 1004)
            #expect(try live.overlay()["orientation"]?.string == "portraitUpsideDown")
        }
    }

    /// GET /healthz answers 200 {"status":"ok"}.
    @Test func healthz() throws {
        try withLiveServer { live in
            let response = try live.get("/healthz")
            #expect(response.status == 200)
            #expect(response.text == #"{"status":"ok"}"#)
            #expect(response.header("Content-Type") == "application/json; charset=utf-8")
        }
    }

    /// GET /metrics is Prometheus text: HELP/TYPE comments and `name{labels} value` samples.
    @Test func metrics() throws {
        try withLiveServer { live in
            #expect(try live.request("POST", "/messages", body: "a").status == 202)
            #expect(try live.request("POST", "/messages", body: "b").status == 202)
            #expect(try live.request("POST", "/messages", body: "").status == 422)
            #expect(try live.request("POST", "/messages?delay=60", body: "later").status == 202)

            let response = try live.get("/metrics")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "text/plain; version=0.0.4; charset=utf-8")
            let lines = response.text.split(separator: "\n").map(String.init)
            #expect(response.text.hasSuffix("\n"))
            var samples: [String: Double] = [:]
            var typed: Set<String> = []
            for line in lines {
                if line.hasPrefix("# HELP ") { continue }
                if line.hasPrefix("# TYPE ") {
                    let parts = line.split(separator: " ")
                    #expect(parts.count == 4 && ["counter", "gauge", "histogram"].contains(parts[3]), "\(line)")
                    typed.insert(String(parts[2]))
                    continue
                }
                let parts = line.split(separator: " ")
                guard parts.count == 2, let value = Double(parts[1]) else {
                    Issue.record("not a sample line: \(line)")
                    continue
                }
                let name = String(parts[0].prefix { $0 != "{" })
                // A histogram's samples are its name with _bucket, _sum or _count.
                let family = ["_bucket", "_sum", "_count"].first { name.hasSuffix($0) }.map { name.dropLast($0.count) }
                #expect(
                    typed.contains(name) || family.map { typed.contains(String($0)) } == true,
                    "sample before its TYPE: \(line)")
                #expect(name.allSatisfy { $0.isLetter || $0.isNumber || $0 == "_" }, "\(line)")
                samples[String(parts[0])] = value
            }
            #expect(samples["overlayd_messages_posted_total"] == 3)
            let buildInfo =
                #"overlayd_build_info{version="\#(OverlayService.version)",swift="\#(Metrics.swiftVersion)"}"#
            #expect(samples[buildInfo] == 1)
            #expect(Metrics.swiftVersion.hasPrefix("6.") || Metrics.swiftVersion.hasPrefix("7."))
            #expect(samples[#"overlayd_queue_length{channel="default"}"#] == 1)
            #expect(samples[#"overlayd_scheduled_messages{channel="default"}"#] == 1)
            // Each accepted post is a version, the scheduled one too: it changes the overlay's `scheduled`.
            #expect(samples[#"overlayd_overlay_version{channel="default"}"#] == 3)
            #expect(samples[#"overlayd_overlay_phase{channel="default",phase="showing"}"#] == 1)
            #expect(samples[#"overlayd_overlay_phase{channel="default",phase="hidden"}"#] == 0)
            // Responses are counted when each exchange completes, just after the client has the answer.
            var counted = samples[#"overlayd_http_responses_total{status="202"}"#]
            #expect(
                try eventually {
                    if counted == 3 { return true }
                    counted = Self.sample(
                        try live.get("/metrics").text, #"overlayd_http_responses_total{status="202"}"#)
                    return counted == 3
                }, "counted \(counted ?? -1)")
            #expect(Self.sample(try live.get("/metrics").text, #"overlayd_http_responses_total{status="422"}"#) == 1)
        }
    }

    static func sample(_ text: String, _ name: String) -> Double? { MetricSamples(text)[name] }

    /// GET /clock reads the manual clock; POST /clock moves it by `advance`, to `to`, or by a text body.
    @Test func manualClock() throws {
        try withLiveServer { live in
            #expect(try live.get("/clock").text == #"{"now":0,"mode":"manual"}"#)
            let advanced = try live.advance(1.25)
            #expect(advanced.status == 200)
            #expect(advanced.text == #"{"now":1.25,"mode":"manual"}"#)
            let to = try live.post("/clock", json: #"{"to": 2}"#)
            #expect(to.json["now"]?.number == 2)
            let text = try live.request("POST", "/clock", headers: [("Content-Type", "text/plain")], body: "0.5")
            #expect(text.json["now"]?.number == 2.5)
            let query = try live.request("POST", "/clock?advance=0.25")
            #expect(query.json["now"]?.number == 2.75)
            // Advancing by 0 and moving to now are allowed and change nothing.
            #expect(try live.advance(0).json["now"]?.number == 2.75)
            #expect(try live.post("/clock", json: #"{"to": 2.75}"#).json["now"]?.number == 2.75)
            #expect(try live.overlay()["now"]?.number == 2.75)
            // Decimal steps reach deadlines exactly: 0.1 + 0.2 is 0.3.
            try withLiveServer { exact in
                #expect(try exact.request("POST", "/messages?duration=0.05", body: "a").status == 202)
                try exact.advance(0.1)
                try exact.advance(0.2)
                #expect(try exact.get("/messages/1").json["endedAt"]?.number == 0.3)
            }
        }
    }

    /// In real-clock mode GET /clock reads the monotonic clock and POST /clock is 409.
    @Test func realClockRefusesToMove() throws {
        try withLiveServer(clock: .real) { live in
            let clock = try live.get("/clock")
            #expect(clock.status == 200)
            #expect(clock.json["mode"]?.string == "real")
            #expect((clock.json["now"]?.number ?? -1) >= 0)
            let before = try live.observableState()
            expectError(try live.advance(1), status: 409, code: "clock_not_manual")
            #expect(try live.observableState().version == before.version)
        }
    }

    /// OPTIONS answers 204 with the methods each path allows.
    @Test(arguments: [
        ("/", "GET, HEAD, OPTIONS"),
        ("/messages", "GET, POST, HEAD, OPTIONS"),
        ("/messages/1", "GET, PATCH, DELETE, HEAD, OPTIONS"),
        ("/overlay", "GET, HEAD, OPTIONS"),
        ("/orientation", "PUT, OPTIONS"),
        ("/healthz", "GET, HEAD, OPTIONS"),
        ("/metrics", "GET, HEAD, OPTIONS"),
        ("/clock", "GET, POST, HEAD, OPTIONS"),
    ])
    func options(path: String, allow: String) throws {
        try withLiveServer { live in
            let response = try live.request("OPTIONS", path)
            #expect(response.status == 204)
            #expect(response.header("Allow") == allow)
            #expect(response.body.isEmpty)
        }
    }

    /// GET / names the service and its endpoints.
    @Test func index() throws {
        try withLiveServer { live in
            let response = try live.get("/")
            #expect(response.status == 200)
            #expect(response.json["name"]?.string == "overlayd")
            #expect(response.json["version"]?.string == OverlayService.version)
            #expect(response.json["clock"]?.string == "manual")
            let endpoints = response.json["endpoints"]?.array?.compactMap(\.string) ?? []
            #expect(endpoints.contains("POST /messages"))
            #expect(endpoints.contains("GET /overlay"))
            #expect(endpoints.contains("GET /events"))
            #expect(endpoints.contains("GET /channels"))
            #expect(endpoints.contains("GET /openapi.yaml"))
            #expect(endpoints.contains("GET /preview"))
            #expect(endpoints.contains("PUT /statusbar/controllers"))
            #expect(endpoints.contains("PUT /presentation"))
            #expect(endpoints.contains("POST /overlay/hold"))
            #expect(endpoints.contains("GET /preview/font"))
            #expect(endpoints.contains("GET /overlayd.js"))
            #expect(
                endpoints.contains("POST /tokens") && endpoints.contains("GET /whoami")
                    && endpoints.contains("GET /auth"))
            #expect(endpoints.contains("POST /overlay/tap"))
            #expect(endpoints.count == 35)
        }
    }
}
