import MicroHTTP
import ServiceTestSupport
import Testing

@testable import OverlayService

/// `?template=alertmanager` and `?template=grafana`: one keyed message per alert, `failed` while
/// it fires and `sent` once resolved, through the real dispatcher.
@Suite("Webhooks: Alertmanager and Grafana")
struct AlertWebhookTests {
    static func body(_ alerts: String...) -> String {
        #"{"version": "4", "alerts": [\#(alerts.joined(separator: ","))]}"#
    }

    /// One alert, its mapping: (alert, key, kind, text, subtitle or nil, priority).
    @Test(
        arguments: [
            (
                #"{"status": "firing", "fingerprint": "f1", "labels": {"alertname": "Down", "instance": "db:9100", "severity": "critical"}, "annotations": {"summary": "db is down"}}"#,
                "alertmanager-f1", "failed", "db is down", "Down · db:9100", 5
            ),
            (
                #"{"status": "firing", "fingerprint": "f2", "labels": {"alertname": "Down", "severity": "warning"}}"#,
                "alertmanager-f2", "failed", "Down", nil, 4
            ),
            (
                #"{"status": "firing", "fingerprint": "f3", "labels": {"instance": "a:1", "severity": "info"}}"#,
                "alertmanager-f3", "failed", "alert", "a:1", 2
            ),
            (
                #"{"status": "firing", "fingerprint": "f4", "labels": {"alertname": "X", "severity": "page"}, "annotations": {"summary": "  "}}"#,
                "alertmanager-f4", "failed", "X", nil, 4
            ),
            (
                #"{"status": "resolved", "fingerprint": "f5", "labels": {"alertname": "Down", "severity": "critical"}, "annotations": {"summary": "ok"}}"#,
                "alertmanager-f5", "sent", "ok", "Down", 3
            ),
            (
                #"{"status": "firing", "fingerprint": "f6", "labels": {}, "annotations": {"summary": "s"}, "extra": [1]}"#,
                "alertmanager-f6", "failed", "s", nil, 4
            ),
        ] as [(String, String, String, String, String?, Int)])
    func mapsAnAlert(alert: String, key: String, kind: String, text: String, subtitle: String?, priority: Int) throws {
        let service = try OverlayService.testing()
        let response = Webhook.deliver(service, "alertmanager", Self.body(alert))
        #expect(response.status == 200)
        let message = try #require(Webhook.messages(response).first)
        #expect(message["key"]?.string == key)
        #expect(message["kind"]?.string == kind)
        #expect(message["text"]?.string == text)
        #expect(message["subtitle"]?.string == subtitle)
        #expect(message["priority"]?.int == priority)
    }

    /// Resolution updates the message the firing made: same id, `sent`, the kind's priority, and a
    /// subtitle that maps to nothing is removed.
    @Test func resolutionUpdatesInPlace() throws {
        let service = try OverlayService.testing()
        let firing = Webhook.deliver(
            service, "alertmanager",
            Self.body(
                #"{"status": "firing", "fingerprint": "abc", "labels": {"alertname": "Down", "instance": "db", "severity": "critical"}, "annotations": {"summary": "db down"}}"#,
                #"{"status": "firing", "fingerprint": "def", "labels": {"alertname": "Slow"}}"#))
        let made = Webhook.messages(firing)
        #expect(made.count == 2 && made[0]["id"]?.int == 1 && made[1]["id"]?.int == 2)
        let resolved = Webhook.deliver(
            service, "alertmanager", Self.body(#"{"status": "resolved", "fingerprint": "abc", "labels": {}}"#))
        let message = try #require(Webhook.messages(resolved).first)
        #expect(message["id"]?.int == 1)
        #expect(message["kind"]?.string == "sent")
        #expect(message["text"]?.string == "alert")
        #expect(message["subtitle"] == .null)
        #expect(message["priority"]?.int == 3)
        // The second alert is still queued, untouched.
        #expect(Webhook.state(service)["messages"]?.array?.count == 2)
    }

    /// A key repeated in one body updates the message its first alert made.
    @Test func repeatedKeyInOneBody() throws {
        let service = try OverlayService.testing()
        let response = Webhook.deliver(
            service, "grafana",
            Self.body(
                #"{"status": "firing", "fingerprint": "k", "labels": {"alertname": "A"}}"#,
                #"{"status": "resolved", "fingerprint": "k", "labels": {"alertname": "A"}}"#))
        let messages = Webhook.messages(response)
        #expect(messages.count == 2)
        #expect(messages.map { $0["id"]?.int } == [1, 1])
        #expect(messages.map { $0["kind"]?.string } == ["failed", "sent"])
        #expect(messages[0]["key"]?.string == "grafana-k")
    }

    /// Grafana's and Alertmanager's documented bodies, as their tools send them.
    @Test func documentedBodies() throws {
        let service = try OverlayService.testing()
        let grafana = Webhook.messages(Webhook.deliver(service, "grafana", try Webhook.fixture("grafana-firing.json")))
        #expect(grafana.map { $0["key"]?.string } == ["grafana-c6eadffa33fcdf37", "grafana-bc97ff14869b13e3"])
        #expect(
            grafana.map { $0["text"]?.string } == [
                "This alert was triggered for zone us-1", "This alert was triggered for zone eu-1",
            ])
        #expect(grafana.map { $0["subtitle"]?.string } == ["High memory usage", "High CPU usage"])
        #expect(grafana.allSatisfy { $0["kind"]?.string == "failed" && $0["priority"]?.int == 4 })
        let alertmanager = Webhook.messages(
            Webhook.deliver(service, "alertmanager", try Webhook.fixture("alertmanager-firing.json"), channel: "am"))
        #expect(
            alertmanager.map { $0["key"]?.string } == [
                "alertmanager-cbc62e5ad5f05629", "alertmanager-003b0a0f7d3fa569",
            ])
        #expect(alertmanager.map { $0["text"]?.string } == ["Instance node-1.example.com:9100 down", "Watchdog"])
        #expect(alertmanager.map { $0["subtitle"]?.string } == ["InstanceDown · node-1.example.com:9100", nil])
        #expect(alertmanager.map { $0["priority"]?.int } == [5, 4])
    }

    /// A summary of 300 characters is cut to 255 and an ellipsis; blanks around it are trimmed
    /// first, so that a text that fits once trimmed is kept whole.
    @Test func longTextIsCut() throws {
        let service = try OverlayService.testing()
        let summary = String(repeating: "é", count: 300)
        let response = Webhook.deliver(
            service, "alertmanager",
            Self.body(#"{"status": "firing", "fingerprint": "x", "annotations": {"summary": "\#(summary)"}}"#))
        let text = try #require(Webhook.messages(response).first?["text"]?.string)
        #expect(text == String(repeating: "é", count: 255) + "…")
        let padded = String(repeating: "a", count: 250) + String(repeating: " ", count: 10)
        let kept = Webhook.deliver(
            service, "alertmanager",
            Self.body(#"{"status": "firing", "fingerprint": "y", "annotations": {"summary": "\#(padded)"}}"#))
        #expect(Webhook.messages(kept).first?["text"]?.string == String(repeating: "a", count: 250))
    }

    /// A body that is not this tool's shape is 400 naming the field, and changes nothing.
    @Test(arguments: [
        (#"{"version": "4"}"#, "alerts"),
        (#"{"alerts": {}}"#, "alerts"),
        (#"{"alerts": [1]}"#, "alerts[0].status"),
        (#"{"alerts": [{"fingerprint": "a"}]}"#, "alerts[0].status"),
        (#"{"alerts": [{"status": "pending", "fingerprint": "a"}]}"#, "alerts[0].status"),
        (#"{"alerts": [{"status": "firing"}]}"#, "alerts[0].fingerprint"),
        (#"{"alerts": [{"status": "firing", "fingerprint": 7}]}"#, "alerts[0].fingerprint"),
        (#"{"alerts": [{"status": "firing", "fingerprint": " "}]}"#, "alerts[0].fingerprint"),
        (#"{"alerts": [{"status": "firing", "fingerprint": "a", "labels": {"n": 1}}]}"#, "alerts[0].labels"),
        (
            #"{"alerts": [{"status": "firing", "fingerprint": "a"}, {"status": "firing", "fingerprint": "b", "annotations": []}]}"#,
            "alerts[1].annotations"
        ),
    ])
    func wrongShape(body: String, field: String) throws {
        let service = try OverlayService.testing()
        let before = Webhook.state(service)
        let answer = Webhook.error(Webhook.deliver(service, "alertmanager", body))
        #expect(answer.status == 400 && answer.code == "bad_request" && answer.field == field)
        #expect(Webhook.state(service) == before)
    }

    /// Not JSON at all, or nested past the parser's depth: 400 `invalid_json`, nothing changed.
    @Test(arguments: ["alerts", "{", String(repeating: "[", count: 100_000), #"{"alerts": [], "alerts": []}"#])
    func notJSON(body: String) throws {
        let service = try OverlayService.testing()
        let before = Webhook.state(service)
        let answer = Webhook.error(Webhook.deliver(service, "grafana", body))
        #expect(answer.status == 400 && answer.code == "invalid_json")
        #expect(Webhook.state(service) == before)
    }

    /// All or nothing: a body whose third alert would overflow the queue applies none of them,
    /// creates no channel, and names the alert.
    @Test func atomic() throws {
        let service = try OverlayService.testing { $0.engine.maxQueue = 1 }
        let alerts = (0..<3).map { #"{"status": "firing", "fingerprint": "a\#($0)"}"# }
        let answer = Webhook.deliver(
            service, "alertmanager", #"{"alerts": [\#(alerts.joined(separator: ","))]}"#, channel: "new")
        #expect(answer.status == 503 && Webhook.error(answer).code == "queue_full")
        #expect(answer.json["error"]?["message"]?.string?.hasPrefix("alerts[2]: ") == true)
        let channels = service.answer(HTTPRequest("GET", "/channels")).json
        #expect(channels["channels"]?.array?.contains { $0["name"]?.string == "new" } == false)
        // Two fit: both are applied.
        let two = Webhook.deliver(
            service, "alertmanager", #"{"alerts": [\#(alerts[0]),\#(alerts[1])]}"#, channel: "new")
        #expect(Webhook.messages(two).count == 2)
    }

    /// An empty list of alerts is an empty answer; more than 10,000 is refused before any work.
    @Test func emptyAndHuge() throws {
        let service = try OverlayService.testing()
        let empty = Webhook.deliver(service, "alertmanager", #"{"alerts": []}"#)
        #expect(empty.status == 200 && empty.json == .object(["messages": .array([])]))
        let huge = "{\"alerts\": [" + Array(repeating: "0", count: 10_001).joined(separator: ",") + "]}"
        let refused = Webhook.error(Webhook.deliver(service, "alertmanager", huge))
        #expect(refused.status == 422 && refused.code == "too_many_messages" && refused.field == "alerts")
    }
}
