import Glibc
import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// Debian's `prometheus-alertmanager`, with a webhook receiver pointed at a live overlayd: an
/// alert posted to its API shows as a `failed` message, and its resolution turns the same message
/// `sent`. CI sets OVERLAYD_REQUIRE_ALERTMANAGER=1, so that there a missing one fails.
@Suite(
    "Webhooks: a real Alertmanager",
    .enabled(
        if: Alertmanager.path != nil || Alertmanager.isRequired,
        "needs prometheus-alertmanager (apt-get install prometheus-alertmanager)"))
struct AlertmanagerLiveTests {

    /// An RFC 3339 time `offset` seconds from now, as Alertmanager's API takes it.
    static func time(_ offset: Int) -> String {
        var seconds = time_t(Glibc.time(nil) + offset)
        var parts = tm()
        gmtime_r(&seconds, &parts)
        var text = [CChar](repeating: 0, count: 32)
        let count = strftime(&text, text.count, "%Y-%m-%dT%H:%M:%SZ", &parts)
        return String(decoding: text[..<count].map { UInt8(bitPattern: $0) }, as: UTF8.self)
    }

    static func alert(startsAt: String, endsAt: String? = nil) -> String {
        let end = endsAt.map { #", "endsAt": "\#($0)""# } ?? ""
        return #"""
            [{"labels": {"alertname": "DiskFull", "instance": "db:9100", "severity": "critical"},
              "annotations": {"summary": "Disk full on db"}, "startsAt": "\#(startsAt)"\#(end)}]
            """#
    }

    @Test func firingThenResolved() throws {
        let alertmanager = try #require(Alertmanager.path, "OVERLAYD_REQUIRE_ALERTMANAGER=1 and none on PATH")
        try withLiveServer { live in
            let directory = try TemporaryDirectory()
            let config = try directory.write(
                "alertmanager.yml",
                """
                route:
                  receiver: overlayd
                  group_by: [alertname]
                  group_wait: 0s
                  group_interval: 1s
                  repeat_interval: 1h
                receivers:
                  - name: overlayd
                    webhook_configs:
                      - url: http://127.0.0.1:\(live.port)/channels/alerts/messages?template=alertmanager
                        send_resolved: true
                """)
            let port = try Loopback.freePort()
            let process = try ChildProcess(
                alertmanager,
                [
                    "--config.file=\(config)", "--storage.path=\(directory.path)/data",
                    "--web.listen-address=127.0.0.1:\(port)", "--cluster.listen-address=",
                ])
            defer { _ = process.stop() }
            #expect(
                eventually { (try? RawClient.request("GET", "/-/ready", port: port, halfClose: false))?.status == 200 },
                "Alertmanager did not start: \(process.errorText)")

            let started = Self.time(-60)
            // Never half-closed: Go's server cancels a request whose client shut its sending side,
            // and Alertmanager's alert list stops at a cancelled context with what it has (under
            // load, nothing: `[]`). It closes after each answer (`Connection: close`).
            let posted = try RawClient.request(
                "POST", "/api/v2/alerts", port: port, headers: [("Content-Type", "application/json")],
                body: Self.alert(startsAt: started), halfClose: false)
            #expect(posted.status == 200)
            let fingerprint = try #require(
                try RawClient.request("GET", "/api/v2/alerts", port: port, halfClose: false).json[0]?["fingerprint"]?
                    .string)

            func message() -> JSONValue? { try? live.get("/channels/alerts/messages").json["messages"]?[0] }
            #expect(eventually { message() != nil }, "no message came: \(process.errorText)")
            let firing = try #require(message())
            #expect(firing["key"]?.string == "alertmanager-\(fingerprint)")
            #expect(firing["kind"]?.string == "failed")
            #expect(firing["text"]?.string == "Disk full on db")
            #expect(firing["subtitle"]?.string == "DiskFull · db:9100")
            #expect(firing["priority"]?.int == 5)

            // Resolved: the same alert (same labels) with an end in the past.
            let resolved = try RawClient.request(
                "POST", "/api/v2/alerts", port: port, headers: [("Content-Type", "application/json")],
                body: Self.alert(startsAt: started, endsAt: Self.time(-1)), halfClose: false)
            #expect(resolved.status == 200)
            #expect(eventually { message()?["kind"]?.string == "sent" }, "no resolution came: \(process.errorText)")
            let sent = try #require(message())
            #expect(sent["id"] == firing["id"])
            #expect(sent["priority"]?.int == 3)
            #expect(sent["text"]?.string == "Disk full on db")
        }
    }
}

/// Debian's Alertmanager binary, found on PATH.
enum Alertmanager {
    static let path = ChildProcess.find("prometheus-alertmanager") ?? ChildProcess.find("alertmanager")
    /// CI sets OVERLAYD_REQUIRE_ALERTMANAGER=1: there a missing one fails instead of skipping.
    static var isRequired: Bool { getenv("OVERLAYD_REQUIRE_ALERTMANAGER").map { String(cString: $0) } == "1" }
}
