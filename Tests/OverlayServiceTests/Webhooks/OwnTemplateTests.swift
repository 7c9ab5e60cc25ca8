import MicroHTTP
import ServiceTestSupport
import Testing

@testable import OverlayService

/// `webhooks.templates`: the operator's own templates, checked at start-up and read by the same
/// mapping as the built-in ones.
@Suite("Webhooks: the operator's templates")
struct OwnTemplateTests {
    static let builds = #"""
        {"builds": {"each": "/builds", "text": "/title",
          "kind": {"pointer": "/ok", "map": {"true": "sent", "false": "failed"}, "default": "info"},
          "key": {"prefix": "build-", "pointer": "/id"}, "subtitle": {"value": "CI"},
          "priority": "/level", "duration": "/seconds", "progress": {"pointer": "/done", "default": null},
          "icon": {"pointer": "/emoji", "default": "🔧"}}}
        """#

    static func service(_ templates: String = builds) throws -> OverlayService {
        let configuration = try ServiceConfiguration.loaded(file: #"{"webhooks": {"templates": \#(templates)}}"#)
        return try OverlayService.testing { $0.webhookTemplates = configuration.webhookTemplates }
    }

    /// Each element of `/builds` is a message; a number becomes text where text is wanted and a
    /// string a number where a number is; what points to nothing takes the default.
    @Test func mapsEachElement() throws {
        let service = try Self.service()
        let response = Webhook.deliver(
            service, "builds",
            #"""
            {"builds": [
              {"id": 17, "title": "Build 17", "ok": true, "level": "5", "seconds": 4, "emoji": "✅"},
              {"id": "x", "title": 1.0, "ok": "maybe"},
              {"id": 18, "title": "Build 18", "ok": false, "level": 1, "seconds": "2.5"}
            ]}
            """#)
        let messages = Webhook.messages(response)
        #expect(response.status == 200 && messages.count == 3)
        #expect(messages.map { $0["key"]?.string } == ["build-17", "build-x", "build-18"])
        #expect(messages.map { $0["kind"]?.string } == ["sent", "info", "failed"])
        #expect(messages.map { $0["text"]?.string } == ["Build 17", "1", "Build 18"])
        #expect(messages.map { $0["subtitle"]?.string } == ["CI", "CI", "CI"])
        #expect(messages.map { $0["icon"]?.string } == ["✅", "🔧", "🔧"])
        #expect(messages.map { $0["priority"]?.int } == [5, 3, 1])
        #expect(messages.map { $0["duration"]?.number } == [4, nil, 2.5])
    }

    /// A text that points to nothing (or to blank text) is 422 `template_mismatch` naming the
    /// template's pointer; a value the
    /// field refuses is refused as that field would be (a wrong type 400, out of range 422),
    /// naming where it came from; none changes anything.
    @Test(arguments: [
        (#"{"builds": [{"id": 1, "title": "a"}, {"id": 2}]}"#, "template_mismatch", "/title"),
        (#"{"builds": [{"id": 1, "title": "  "}]}"#, "template_mismatch", "/title"),
        (#"{"builds": [{"id": 1, "title": "a", "level": 9}]}"#, "invalid_field", "builds[0].level"),
        (#"{"builds": [{"id": 1, "title": {"a": 1}}]}"#, "template_mismatch", "/title"),
        (#"{"builds": [{"id": 1, "title": "a", "seconds": true}]}"#, "bad_request", "builds[0].seconds"),
        (#"{"builds": {"id": 1}}"#, "template_mismatch", "/builds"),
    ])
    func mismatch(body: String, code: String, field: String) throws {
        let service = try Self.service()
        let before = Webhook.state(service)
        let answer = Webhook.error(Webhook.deliver(service, "builds", body))
        #expect(answer.status == (code == "bad_request" ? 400 : 422) && answer.code == code && answer.field == field)
        #expect(Webhook.state(service) == before)
    }

    /// Without `each` the body is one message; a pointer with `~1` reaches a name with a slash;
    /// `/..` is a member's name, not a way out.
    @Test func oneMessageAndEscapes() throws {
        let service = try Self.service(#"{"one": {"text": "/a~1b", "subtitle": "/../x"}}"#)
        let messages = Webhook.messages(Webhook.deliver(service, "one", #"{"a/b": "slash", "..": {"x": "dots"}}"#))
        #expect(messages.first?["text"]?.string == "slash")
        #expect(messages.first?["subtitle"]?.string == "dots")
        let answer = Webhook.error(Webhook.deliver(service, "one", #"{"ab": "x"}"#))
        #expect(answer.code == "template_mismatch" && answer.field == "/a~1b")
        // The text "null" is text: only JSON null counts as absent.
        let null = Webhook.messages(Webhook.deliver(service, "one", #"{"a/b": "t", "..": {"x": "null"}}"#))
        #expect(null.first?["subtitle"]?.string == "null")
    }

    /// An unknown template is 404; `template` takes no other message parameter.
    @Test func unknownAndExtraParameters() throws {
        let service = try Self.service()
        let unknown = Webhook.error(Webhook.deliver(service, "nope", "{}"))
        #expect(unknown.status == 404 && unknown.code == "unknown_template" && unknown.field == "template")
        let extra = Webhook.error(
            Webhook.deliver(service, "builds", #"{"builds": []}"#, query: [.init(name: "text", value: "x")]))
        #expect(extra.status == 400 && extra.field == "text")
    }

    /// A template that could never work stops start-up, naming where it is wrong.
    @Test(arguments: [
        (#"{"a": {"subtitle": "/s"}}"#, "webhooks.templates.a.text"),
        (#"{"a": {"text": "s"}}"#, "webhooks.templates.a.text"),
        (#"{"a": {"text": "/a~2"}}"#, "webhooks.templates.a.text"),
        (#"{"a": {"text": "/t", "colour": "/c"}}"#, "webhooks.templates.a.colour"),
        (#"{"a": {"text": "/t", "kind": {"value": "loud"}}}"#, "webhooks.templates.a.kind.value"),
        (#"{"a": {"text": "/t", "kind": {"pointer": "/k", "map": {"1": "bad"}}}}"#, "webhooks.templates.a.kind.map.1"),
        (
            #"{"a": {"text": "/t", "priority": {"pointer": "/p", "default": 9}}}"#,
            "webhooks.templates.a.priority.default"
        ),
        (#"{"a": {"text": "/t", "each": 3}}"#, "webhooks.templates.a.each"),
        (#"{"a": {"text": "/t", "click": {"value": "javascript:x"}}}"#, "webhooks.templates.a.click.value"),
        (
            #"{"a": {"text": "/t", "click": {"pointer": "/u", "default": "no scheme"}}}"#,
            "webhooks.templates.a.click.default"
        ),
        (#"{"a": {"text": {"value": null}}}"#, "webhooks.templates.a.text.value"),
        (#"{"a": {"text": "/t", "key": {"prefix": 1, "pointer": "/k"}}}"#, "webhooks.templates.a.key"),
        (#"{"a": {"text": {"pointer": "/t", "colour": 1}}}"#, "webhooks.templates.a.text.colour"),
        (#"{"github": {"text": "/t"}}"#, "webhooks.templates.github"),
        (#"{"a b": {"text": "/t"}}"#, "webhooks.templates.a b"),
        (#"[]"#, "webhooks.templates"),
    ])
    func invalidTemplate(templates: String, key: String) throws {
        let error = ConfigurationError.loading(file: #"{"webhooks": {"templates": \#(templates)}}"#)
        #expect(error?.key == key, "\(error?.description ?? "no error")")
    }

    /// A template may point `click` at a URL in the body (docs/MODEL.md §14): the message opens it;
    /// one that points to nothing has none, and a URL the rules refuse refuses the delivery,
    /// naming where it came from, with nothing applied.
    @Test func aTemplateMapsClick() throws {
        let service = try Self.service(#"{"runs": {"each": "/runs", "text": "/title", "key": "/id", "click": "/url"}}"#)
        let response = Webhook.deliver(
            service, "runs",
            #"{"runs": [{"id": "r1", "title": "Run 1", "url": "https://ci.example/r1"}, {"id": "r2", "title": "Run 2"}]}"#
        )
        #expect(response.status == 200)
        #expect(Webhook.messages(response).map { $0["click"]?.string } == ["https://ci.example/r1", nil])
        let refused = Webhook.error(
            Webhook.deliver(
                service, "runs",
                #"{"runs": [{"id": "r3", "title": "Run 3"}, {"id": "r4", "title": "Run 4", "url": "javascript:alert(1)"}]}"#
            ))
        #expect(refused.status == 422 && refused.code == "invalid_field" && refused.field == "runs[1].click")
        let messages = service.answer(HTTPRequest(method: "GET", path: "/messages"))
        #expect(messages.json["messages"]?.array?.count == 2)
    }

    /// JSON Pointer (RFC 6901) as the templates read it.
    @Test(
        arguments: [
            ("", #"{"a": 1}"#, #"{"a": 1}"#), ("/a", #"{"a": 1}"#, "1"), ("/a/1", #"{"a": [1, 2]}"#, "2"),
            ("/a/01", #"{"a": [1, 2]}"#, nil), ("/a/-", #"{"a": [1]}"#, nil), ("/a/2", #"{"a": [1, 2]}"#, nil),
            ("/~0/~1", #"{"~": {"/": true}}"#, "true"), ("/", #"{"": 3}"#, "3"), ("/a/b", #"{"a": "s"}"#, nil),
            ("/a/99999999999999999999", #"{"a": [1]}"#, nil),
        ] as [(String, String, String?)])
    func pointer(text: String, document: String, expected: String?) throws {
        let pointer = try JSONPointer.parse(text).get()
        let found = pointer.resolve(in: try JSONParser.parse(Array(document.utf8)))
        #expect(found == expected.map { try! JSONParser.parse(Array($0.utf8)) })
        #expect(pointer.description == text)
    }
}

/// docs/INTEGRATIONS.md's worked example, as written there.
@Suite("Webhooks: the worked example")
struct WorkedExampleTests {
    @Test func workedExample() throws {
        let service = try OwnTemplateTests.service(
            #"""
            {"builds": {
                "each": "/builds",
                "key": {"prefix": "build-", "pointer": "/id"},
                "text": "/title",
                "kind": {"pointer": "/result",
                         "map": {"passed": "sent", "failed": "failed", "running": "sending"},
                         "default": "info"},
                "icon": {"pointer": "/result", "map": {"passed": "✅", "failed": "❌"}, "default": null},
                "subtitle": "/pipeline"
              }}
            """#)
        let first = Webhook.messages(
            Webhook.deliver(
                service, "builds",
                #"""
                {"pipeline": "nightly", "builds": [
                  {"id": 812, "title": "Build 812", "result": "passed"},
                  {"id": 813, "title": "Build 813", "result": "running"}
                ]}
                """#))
        #expect(first.map { $0["key"]?.string } == ["build-812", "build-813"])
        #expect(first.map { $0["kind"]?.string } == ["sent", "sending"])
        #expect(first.map { $0["icon"]?.string } == ["✅", nil])
        #expect(first.map { $0["subtitle"]?.string } == [nil, nil])
        let later = Webhook.messages(
            Webhook.deliver(
                service, "builds", #"{"builds": [{"id": 813, "title": "Build 813", "result": "failed"}]}"#))
        #expect(later.first?["id"] == first.last?["id"])
        #expect(later.first?["kind"]?.string == "failed" && later.first?["icon"]?.string == "❌")
    }
}

/// `?auth=` is taken on a write through a template and on no other write, whatever its query.
@Suite("Webhooks: the credential in the query")
struct TemplateCredentialTests {
    @Test(arguments: [
        ("POST", "/messages", 200), ("POST", "/channels/ci/messages/", 200), ("POST", "/tokens", 400),
        ("POST", "/clock", 400), ("POST", "/overlay/dismiss", 400), ("POST", "/channels/ci/overlay/hold", 400),
        ("PATCH", "/messages/1", 400), ("POST", "/channels/ci/messages/1", 400),
    ])
    func onlyTemplateWrites(method: String, path: String, status: Int) throws {
        let service = try OverlayService.guarded()
        let query = [
            QueryItem(name: "template", value: "alertmanager"),
            QueryItem(name: "auth", value: Credential.admin),
        ]
        let answer = service.answer(
            HTTPRequest(method, path, query: query, body: #"{"alerts": []}"#))
        #expect(answer.status == status, "\(String(decoding: answer.body, as: UTF8.self))")
        if status == 400 { #expect(Webhook.error(answer).field == "auth") }
    }
}
