import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// `click`, `actions` and `accessibilityLabel` (docs/MODEL.md §14) on every way a message field
/// comes in (a JSON body, query parameters beside a text body, a form, multipart, a PATCH, a
/// keyed POST) and out (every message answer, the overlay's message), and every refusal: a clear
/// error naming the field, and nothing changed.
@Suite("Reader's fields through the API (§14)")
struct ReaderFieldsAPITests {
    static let actionsJSON =
        #"[{"id":"open","label":"Open","url":"https://example.com/a?b=c"},{"id":"later","label":" Later "}]"#
    static let click = "myapp://open/42?x=1"
    static let expectedActions: JSONValue = .array([
        .object(["id": .string("open"), "label": .string("Open"), "url": .string("https://example.com/a?b=c")]),
        .object(["id": .string("later"), "label": .string("Later"), "url": .null]),
    ])

    /// The same message by each way in: each answer, the stored message and the overlay's message
    /// have the fields as given (labels trimmed).
    @Test(arguments: ["json", "query", "form", "multipart"])
    func everyWayIn(_ way: String) throws {
        let fields =
            "click=\(FormBody.encoded(Self.click))&actions=\(FormBody.encoded(Self.actionsJSON))"
            + "&accessibilityLabel=\(FormBody.encoded(" Hello there "))"
        try withLiveServer { live in
            let posted: HTTPReply
            switch way {
            case "json":
                posted = try live.post(
                    "/messages",
                    json:
                        #"{"text": "Hi", "click": "\#(Self.click)", "actions": \#(Self.actionsJSON), "accessibilityLabel": " Hello there "}"#
                )
            case "query":
                posted = try live.request(
                    "POST",
                    "/messages?" + fields, headers: [("Content-Type", "text/plain")], body: "Hi")
            case "form":
                posted = try live.request(
                    "POST", "/messages", headers: [FormBody.urlEncoded],
                    body: "text=Hi&" + fields)
            default:
                let form = FormBody.multipart([
                    ("text", nil, "Hi"), ("click", nil, Self.click), ("actions", nil, Self.actionsJSON),
                    ("accessibilityLabel", nil, " Hello there "),
                ])
                posted = try live.request("POST", "/messages", headers: [form.header], body: form.body)
            }
            #expect(posted.status == 202, "\(way): \(posted.text)")
            for answer in [posted.json, try live.get("/messages/1").json, try live.overlay()["message"] ?? .null] {
                #expect(answer["click"]?.string == Self.click, "\(way)")
                #expect(answer["actions"] == Self.expectedActions, "\(way)")
                #expect(answer["accessibilityLabel"]?.string == "Hello there", "\(way)")
                #expect(answer["taps"] == .array([]), "\(way)")
            }
            #expect(try live.overlay()["announcement"]?.string == "Hello there")
            #expect(try live.get("/messages").json["messages"]?[0]?["actions"] == Self.expectedActions)
        }
    }

    /// A PATCH changes them; `null` (JSON or text) and `[]` remove them; a keyed POST updates
    /// them as a PATCH would; the same values again change nothing.
    @Test func patchAndKeyedPost() throws {
        try withLiveServer { live in
            let json = [("Content-Type", "application/json")]
            #expect(try live.post("/messages", json: #"{"text": "Hi", "key": "k", "kind": "sending"}"#).status == 202)
            let patched = try live.request(
                "PATCH", "/messages/1", headers: json,
                body: #"{"click": "https://x.example", "actions": \#(Self.actionsJSON), "accessibilityLabel": "Hey"}"#)
            #expect(patched.status == 200, "\(patched.text)")
            #expect(patched.json["actions"] == Self.expectedActions)
            let version = try #require(try live.version())
            let again = try live.request(
                "PATCH", "/messages/1", headers: json,
                body: #"{"click": "https://x.example", "actions": \#(Self.actionsJSON), "accessibilityLabel": "Hey"}"#)
            #expect(again.status == 200)
            #expect(try live.version() == version)

            let keyed = try live.post("/messages", json: #"{"key": "k", "actions": [{"id": "only", "label": "Only"}]}"#)
            #expect(keyed.status == 200)
            #expect(keyed.json["actions"]?.array?.count == 1)
            #expect(keyed.json["click"]?.string == "https://x.example")

            let removed = try live.request(
                "PATCH", "/messages/1", headers: json,
                body: #"{"click": null, "actions": null, "accessibilityLabel": null}"#)
            #expect(removed.json["click"] == .null && removed.json["actions"] == .array([]))
            #expect(removed.json["accessibilityLabel"] == .null)
            #expect(try live.overlay()["announcement"]?.string == "Sending: Hi")

            #expect(
                try live.request("PATCH", "/messages/1", headers: json, body: #"{"actions": \#(Self.actionsJSON)}"#)
                    .status
                    == 200)
            let emptied = try live.request(
                "PATCH", "/messages/1", body: "actions=null&click=\(FormBody.encoded(Self.click))")
            #expect(emptied.json["actions"] == .array([]) && emptied.json["click"]?.string == Self.click)
            #expect(
                try live.request("PATCH", "/messages/1", headers: json, body: #"{"actions": \#(Self.actionsJSON)}"#)
                    .status
                    == 200)
            #expect(
                try live.request("PATCH", "/messages/1?actions=%5B%5D&click=null", body: "").json["actions"]
                    == .array([]))
            #expect(try live.get("/messages/1").json["click"] == .null)
        }
    }

    /// Each refusal: the status, its code and the field it names; nothing changes.
    @Test func refusalsNameTheFieldAndChangeNothing() throws {
        try withLiveServer(started: LiveServer.startedWithTwoMessages()) { live in
            let before = try live.observableState()
            let label41 = String(repeating: "x", count: 41)
            let cases: [(body: String, status: Int, field: String)] = [
                (
                    #"{"actions": [{"id":"a","label":"A"},{"id":"b","label":"B"},{"id":"c","label":"C"},{"id":"d","label":"D"}]}"#,
                    422, "actions"
                ),
                (#"{"actions": [{"id":"a","label":"A"},{"id":"a","label":"B"}]}"#, 422, "actions[1].id"),
                (#"{"actions": [{"id":"a","label":"\#(label41)"}]}"#, 422, "actions[0].label"),
                (#"{"actions": [{"id":"a","label":""}]}"#, 422, "actions[0].label"),
                (#"{"actions": [{"id":"a","label":"  "}]}"#, 422, "actions[0].label"),
                (#"{"actions": [{"id":"a b","label":"A"}]}"#, 422, "actions[0].id"),
                (#"{"actions": [{"id":"","label":"A"}]}"#, 422, "actions[0].id"),
                (#"{"actions": [{"label":"A"}]}"#, 422, "actions[0].id"),
                (#"{"actions": [{"id":"a"}]}"#, 422, "actions[0].label"),
                (#"{"actions": [{"id":"a","label":"A","url":"javascript:x"}]}"#, 422, "actions[0].url"),
                (#"{"actions": [{"id":"a","label":"A","url":"no scheme"}]}"#, 422, "actions[0].url"),
                (#"{"actions": [{"id":5,"label":"A"}]}"#, 400, "actions[0].id"),
                (#"{"actions": [{"id":"a","label":"A","icon":"x"}]}"#, 400, "actions[0].icon"),
                (#"{"actions": ["a"]}"#, 400, "actions[0]"),
                (#"{"actions": {"id":"a","label":"A"}}"#, 400, "actions"),
                (#"{"actions": "open"}"#, 400, "actions"),
                (#"{"click": "javascript:alert(1)"}"#, 422, "click"),
                (#"{"click": "JavaScript:alert(1)"}"#, 422, "click"),
                (#"{"click": " javascript:alert(1)"}"#, 422, "click"),
                (#"{"click": "\tjavascript:alert(1)"}"#, 422, "click"),
                (#"{"click": "\u0000javascript:alert(1)"}"#, 422, "click"),
                (#"{"click": "java\nscript:alert(1)"}"#, 422, "click"),
                (#"{"click": "data:text/html,<script>x</script>"}"#, 422, "click"),
                (#"{"click": "FILE:///etc/passwd"}"#, 422, "click"),
                (#"{"click": "vbscript:msgbox"}"#, 422, "click"),
                (#"{"click": "blob:https://example.com/1"}"#, 422, "click"),
                (#"{"click": "example.com/path"}"#, 422, "click"),
                (#"{"click": "https://exa mple.com"}"#, 422, "click"),
                (#"{"click": "https://bücher.example"}"#, 422, "click"),
                (#"{"click": "https://example.com/\#(String(repeating: "a", count: 2029))"}"#, 422, "click"),
                (#"{"click": 5}"#, 400, "click"),
                (#"{"accessibilityLabel": ""}"#, 422, "accessibilityLabel"),
                (#"{"accessibilityLabel": "\#(String(repeating: "l", count: 257))"}"#, 422, "accessibilityLabel"),
                (#"{"accessibilityLabel": true}"#, 400, "accessibilityLabel"),
            ]
            for (body, status, field) in cases {
                let code = status == 422 ? "invalid_field" : "bad_request"
                for (method, path) in [("POST", "/messages"), ("PATCH", "/messages/1"), ("PATCH", "/messages/2")] {
                    // A new message needs its text: the same fields with one.
                    let sent = method == "POST" ? "{\"text\": \"new\", " + body.dropFirst() : body
                    let answer = try live.request(
                        method, path, headers: [("Content-Type", "application/json")], body: sent)
                    expectError(answer, status: status, code: code, field: field)
                }
            }
            // As text: a query parameter and a form field of JSON that is no array of actions.
            expectError(
                try live.request("POST", "/messages?actions=open", body: "new"), status: 400, code: "bad_request",
                field: "actions")
            expectError(
                try live.request("PATCH", "/messages/1", body: "actions=%5B%7B%22id%22%3A1%7D%5D"), status: 400,
                code: "bad_request", field: "actions[0].id")
            expectError(
                try live.request("POST", "/messages?click=javascript:alert(1)", body: "new"), status: 422,
                code: "invalid_field", field: "click")
            expectError(
                try live.request("POST", "/messages?actions", body: "new"), status: 400, code: "bad_request",
                field: "actions")
            try live.expectUnchanged(since: before)
        }
    }

    /// The announcement through the API: the overlay's, after `message`, and its version moving
    /// only when the words do.
    @Test func theAnnouncementThroughTheAPI() throws {
        try withLiveServer { live in
            let hidden = try live.overlay()
            #expect(hidden["announcement"] == .null && hidden["announcementVersion"]?.int == 0)
            for (progress, spoken, version, announced) in [
                ("0.1", 10, 1, 1), ("0.19999", 10, 2, 1), ("0.3", 30, 3, 3), ("0.29999", 20, 4, 4), ("0.7", 70, 5, 5),
                ("0.999", 90, 6, 6), ("1", 100, 7, 7),
            ] {
                let body =
                    #"{"key": "dl", "kind": "progress", "text": "Downloading podcast", "progress": \#(progress)}"#
                #expect(try live.post("/messages", json: body).status == (version == 1 ? 202 : 200))
                let overlay = try live.overlay()
                #expect(
                    overlay["announcement"]?.string == "Progress: Downloading podcast, \(spoken) percent", "\(progress)"
                )
                #expect(
                    overlay["version"]?.int == version && overlay["announcementVersion"]?.int == announced,
                    "\(progress)")
            }
            let text = try live.get("/overlay").text
            #expect(
                text.contains(
                    #""state":"showing","click":null,"actions":[],"accessibilityLabel":null,"taps":[]},"announcement":"Progress: Downloading podcast, 100 percent","announcementVersion":7,"label":"#
                ))
        }
    }
}
