import Crypto
import Glibc
import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// Webhooks over real HTTP: the larger body a template's write may carry, the signature refused
/// before the body is read, and `?auth=` for senders that cannot set a header.
@Suite("Webhooks, live")
struct WebhookLiveTests {
    /// GitHub's documented workflow_run body is about 20 KB: past `limits.maxBodyBytes` (16 KiB)
    /// for a message, within `limits.webhookBodyBytes` for a template; past that too, 413.
    @Test func bodyLimits() throws {
        try withLiveServer(configure: { $0.webhookBodyBytes = 24 * 1024 }) { live in
            let body = try Webhook.fixture("github-workflow_run-completed.json")
            #expect(body.utf8.count > 16 * 1024 && body.utf8.count < 24 * 1024)
            let event = [("X-GitHub-Event", "workflow_run"), ("Content-Type", "application/json")]
            let made = try live.request("POST", "/messages?template=github", headers: event, body: body)
            #expect(made.status == 200 && made.json["messages"]?[0]?["key"]?.string == "github-run-289782451")
            #expect(try live.request("POST", "/messages", headers: event, body: body).status == 413)
            let larger = body + String(repeating: " ", count: 8 * 1024)
            let refused = try live.request("POST", "/channels/x/messages?template=github", headers: event, body: larger)
            #expect(refused.status == 413 && refused.errorCode == "payload_too_large")
            // A trailing slash is the same path, to the head check as to the router.
            let slash = try live.request("POST", "/channels/ci/messages/?template=github", headers: event, body: body)
            #expect(slash.status == 200)
            // A query that names no template keeps the message's limit, and so does another path.
            #expect(try live.request("POST", "/tokens?template=github", headers: event, body: body).status == 413)
            #expect(try live.request("POST", "/messages?kind=sent", headers: event, body: body).status == 413)
        }
    }

    /// With a secret, a delivery that carries no signature is answered from its head: the server
    /// does not wait for the 100,000 bytes the head announces.
    @Test func unsignedIsRefusedBeforeTheBody() throws {
        try withLiveServer(configure: { $0.githubSecret = "s3cret" }) { live in
            let client = try RawClient(port: live.port)
            defer { client.close() }
            try client.send(
                "POST /messages?template=github HTTP/1.1\r\nHost: 127.0.0.1\r\nX-GitHub-Event: ping\r\n"
                    + "Content-Length: 100000\r\n\r\n")
            let answer = try HTTPReply.parse(client.receive())
            #expect(answer.status == 401 && answer.errorCode == "invalid_signature")
            // Signed, the same delivery is read and applied (a ping makes no message).
            let body = #"{"zen": "Keep it logically awesome."}"#
            let signature = "sha256=" + SHA256.hex(HMAC.sha256(key: Array("s3cret".utf8), message: Array(body.utf8)))
            let signed = try live.request(
                "POST", "/messages?template=github",
                headers: [("X-GitHub-Event", "ping"), ("X-Hub-Signature-256", signature)], body: body)
            #expect(signed.status == 200 && signed.json["messages"]?.array?.isEmpty == true)
        }
    }

    /// A template's write takes its credential as `?auth=`, which the access log never shows;
    /// any other write still refuses `?auth=`.
    @Test func authInTheQuery() throws {
        let token = "webhook-writer-" + String(repeating: "7", count: 24)
        let child = try ChildProcess.overlayd(
            ["--port", "0", "--ephemeral", "--access-log=true"], environment: ["OVERLAYD_TOKEN": token])
        guard let port = child.listeningPort() else { throw TestSupportError("no start: \(child.errorText)") }
        let body = #"{"alerts": [{"status": "firing", "fingerprint": "f", "labels": {"alertname": "Disk"}}]}"#
        let anonymous = try RawClient.request("POST", "/messages?template=alertmanager", port: port, body: body)
        #expect(anonymous.status == 401)
        let wrong = try RawClient.request("POST", "/messages?template=alertmanager&auth=nope", port: port, body: body)
        #expect(wrong.status == 401 && wrong.errorCode == "invalid_token")
        let made = try RawClient.request(
            "POST", "/channels/ops/messages?template=alertmanager&auth=\(token)", port: port, body: body)
        #expect(made.status == 200 && made.json["messages"]?[0]?["text"]?.string == "Disk")
        let plain = try RawClient.request("POST", "/messages?auth=\(token)", port: port, body: "hi")
        #expect(plain.status == 400 && plain.json["error"]?["field"]?.string == "auth")
        kill(child.pid, SIGTERM)
        #expect(child.exitStatus() == 0)
        let log = child.errorText
        #expect(log.contains("path=/channels/ops/messages status=200"), "\(log)")
        #expect(!log.contains(token) && !log.contains("auth="))
    }
}
