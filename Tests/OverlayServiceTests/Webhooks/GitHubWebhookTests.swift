import Crypto
import MicroHTTP
import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// `?template=github`: the delivery's `X-GitHub-Event` chooses the mapping; a workflow run and a
/// deployment are each one message, updated in place; deliveries may be signed.
@Suite("Webhooks: GitHub")
struct GitHubWebhookTests {
    static func event(_ name: String) -> Header { Header(name: "X-GitHub-Event", value: name) }

    static func run(action: String, conclusion: String? = nil, branch: String? = "main", id: Int = 7) -> String {
        let conclusionJSON = conclusion.map { "\"\($0)\"" } ?? "null"
        let branchJSON = branch.map { "\"\($0)\"" } ?? "null"
        return #"""
            {"action": "\#(action)", "workflow_run": {"id": \#(id), "name": "CI", "run_number": 42,
             "conclusion": \#(conclusionJSON), "head_branch": \#(branchJSON)},
             "repository": {"full_name": "octo/app"}}
            """#
    }

    static func deliver(
        _ service: OverlayService, _ event: String, _ body: String, headers: [Header] = []
    )
        -> HTTPResponse
    {
        Webhook.deliver(service, "github", body, headers: [Self.event(event)] + headers)
    }

    /// A run's conclusion, its kind.
    @Test(arguments: [
        ("success", "sent"), ("failure", "failed"), ("timed_out", "failed"), ("startup_failure", "failed"),
        ("cancelled", "info"), ("skipped", "info"), ("neutral", "info"),
    ])
    func conclusion(conclusion: String, kind: String) throws {
        let service = try OverlayService.testing()
        let message = try #require(
            Webhook.messages(
                Self.deliver(service, "workflow_run", Self.run(action: "completed", conclusion: conclusion))
            )
            .first)
        #expect(message["kind"]?.string == kind)
        #expect(message["key"]?.string == "github-run-7")
        #expect(message["text"]?.string == "CI #42")
        #expect(message["subtitle"]?.string == "octo/app · main")
    }

    /// Requested, in progress, completed: one message; a late `in_progress` after the outcome
    /// yields nothing; a null branch leaves the repository alone in the subtitle.
    @Test func aRunIsOneMessage() throws {
        let service = try OverlayService.testing()
        let requested = Webhook.messages(
            Self.deliver(service, "workflow_run", Self.run(action: "requested", branch: nil)))
        #expect(requested.first?["kind"]?.string == "sending")
        #expect(requested.first?["subtitle"]?.string == "octo/app")
        let progress = Webhook.messages(Self.deliver(service, "workflow_run", Self.run(action: "in_progress")))
        #expect(progress.first?["id"] == requested.first?["id"] && progress.first?["kind"]?.string == "sending")
        let done = Webhook.messages(
            Self.deliver(service, "workflow_run", Self.run(action: "completed", conclusion: "failure")))
        #expect(done.first?["id"] == requested.first?["id"] && done.first?["kind"]?.string == "failed")
        let late = Self.deliver(service, "workflow_run", Self.run(action: "in_progress"))
        #expect(late.status == 200 && Webhook.messages(late).isEmpty)
        let message = service.answer(HTTPRequest("GET", "/messages/1")).json
        #expect(message["kind"]?.string == "failed")
        // An action the mapping does not know makes nothing.
        #expect(Webhook.messages(Self.deliver(service, "workflow_run", Self.run(action: "renamed"))).isEmpty)
    }

    /// A deployment's state, its kind.
    @Test(arguments: [
        ("queued", "sending"), ("pending", "sending"), ("in_progress", "sending"), ("success", "sent"),
        ("failure", "failed"), ("error", "failed"), ("inactive", "info"),
    ])
    func deployment(state: String, kind: String) throws {
        let service = try OverlayService.testing()
        let body = #"""
            {"deployment": {"id": 9, "environment": "staging"}, "deployment_status": {"state": "\#(state)"},
             "repository": {"full_name": "octo/app"}}
            """#
        let message = try #require(Webhook.messages(Self.deliver(service, "deployment_status", body)).first)
        #expect(message["kind"]?.string == kind)
        #expect(message["key"]?.string == "github-deployment-9")
        #expect(message["text"]?.string == "Deploy to staging")
        #expect(message["subtitle"]?.string == "octo/app")
    }

    /// GitHub's documented bodies.
    @Test func documentedBodies() throws {
        let service = try OverlayService.testing()
        let requested = Webhook.messages(
            Self.deliver(service, "workflow_run", try Webhook.fixture("github-workflow_run-requested.json")))
        // The example's run has a blank name: the workflow's name stands in.
        #expect(requested.first?["text"]?.string == "test #163")
        #expect(requested.first?["kind"]?.string == "sending")
        #expect(requested.first?["subtitle"]?.string == "octo-org/octo-repo · master")
        let completed = Webhook.messages(
            Self.deliver(service, "workflow_run", try Webhook.fixture("github-workflow_run-completed.json")))
        #expect(completed.first?["id"] == requested.first?["id"] && completed.first?["kind"]?.string == "sent")
        #expect(completed.first?["key"]?.string == "github-run-289782451")
        let deployment = Webhook.messages(
            Self.deliver(service, "deployment_status", try Webhook.fixture("github-deployment_status.json")))
        #expect(deployment.first?["key"]?.string == "github-deployment-145988746")
        #expect(deployment.first?["text"]?.string == "Deploy to production")
        #expect(deployment.first?["kind"]?.string == "sent")
        let ping = Self.deliver(service, "ping", try Webhook.fixture("github-ping.json"))
        #expect(ping.status == 200 && Webhook.messages(ping).isEmpty)
    }

    /// GitHub's form content type: the JSON is the `payload` field.
    @Test func formBody() throws {
        let service = try OverlayService.testing()
        let json = Self.run(action: "requested")
        let body = "payload=" + FormBody.encoded(json)
        let response = Self.deliver(
            service, "workflow_run", body,
            headers: [Header(name: "Content-Type", value: "application/x-www-form-urlencoded")])
        #expect(Webhook.messages(response).first?["key"]?.string == "github-run-7")
    }

    /// No event header is 400 naming it; a body of another shape is 400 naming the field.
    @Test(arguments: [
        ("workflow_run", #"{"action": "requested"}"#, "workflow_run"),
        ("workflow_run", #"{"action": "requested", "workflow_run": {"id": "7"}}"#, "workflow_run.id"),
        ("workflow_run", #"{"action": 1}"#, "action"),
        ("deployment_status", #"{"deployment": {"id": 1, "environment": "p"}}"#, "deployment_status"),
        (
            "deployment_status", #"{"deployment": {"id": 1}, "deployment_status": {"state": "x"}}"#,
            "deployment.environment"
        ),
    ])
    func wrongShape(event: String, body: String, field: String) throws {
        let service = try OverlayService.testing()
        let answer = Webhook.error(Self.deliver(service, event, body))
        #expect(answer.status == 400 && answer.field == field)
        let missing = Webhook.error(Webhook.deliver(service, "github", Self.run(action: "requested")))
        #expect(missing.status == 400 && missing.field == "X-GitHub-Event")
    }

    /// With `webhooks.github.secret`, only a delivery signed with it is applied: a missing, wrong
    /// or malformed signature is 401 `invalid_signature` and changes nothing.
    @Test func signatures() throws {
        let secret = "It's a Secret to Everybody"
        let service = try OverlayService.testing { $0.githubSecret = secret }
        let body = Self.run(action: "requested")
        let signature = "sha256=" + SHA256.hex(HMAC.sha256(key: Array(secret.utf8), message: Array(body.utf8)))
        for wrong in [nil, "sha256=00", "sha1=" + signature.dropFirst(7), signature.uppercased(), signature + "0"] {
            let headers = wrong.map { [Header(name: "X-Hub-Signature-256", value: $0)] } ?? []
            let answer = Webhook.error(Self.deliver(service, "workflow_run", body, headers: headers))
            #expect(answer.status == 401 && answer.code == "invalid_signature", "\(wrong ?? "none")")
        }
        #expect(Webhook.state(service)["messages"]?.array?.isEmpty == true)
        let signed = Self.deliver(
            service, "workflow_run", body, headers: [Header(name: "X-Hub-Signature-256", value: signature)])
        #expect(Webhook.messages(signed).count == 1)
        // GitHub's own example: the secret and body of its documentation give this signature.
        #expect(
            SHA256.hex(HMAC.sha256(key: Array(secret.utf8), message: Array("Hello, World!".utf8)))
                == "757107ea0eb2509fc211221cce984b8a37570b6d7586c22c46f4379c8b043e17")
    }
}
