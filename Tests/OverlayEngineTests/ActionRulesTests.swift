import Testing

@testable import OverlayEngine

/// The rules of the reader's fields (MODEL §14): `click` and an action's `url` are URLs a reader
/// may open; actions are at most 3 of unique ids and short labels; `accessibilityLabel` is as a
/// subtitle. Every refusal names its field and leaves the engine as it was.
@Suite("Click, actions and accessibility label rules (§14)")
struct ActionRulesTests {
    /// URLs with a scheme, of visible ASCII, none of the refused schemes.
    @Test(arguments: [
        "https://example.com", "http://x", "myapp://open/42?a=b&c=%20", "mailto:ops@example.com", "tel:+4930",
        "HTTPS://EXAMPLE.COM", "x-callback-url:", "a+b.c-d:rest", "javascripts:x", "data2:x",
        "https://example.com/" + String(repeating: "a", count: 2028),
    ])
    func acceptedURLs(url: String) {
        #expect(MessageRules.check(url: url, field: "click") == nil, "\(url)")
    }

    /// Control characters, spaces and non-ASCII anywhere (before a scheme too), no scheme at all,
    /// and the refused schemes in any case.
    @Test(arguments: [
        "javascript:alert(1)", "JavaScript:alert(1)", "JAVASCRIPT:x", "data:text/html,<p>", "DATA:x",
        "file:///etc/passwd",
        "vbscript:msgbox", "blob:https://example.com/1", " javascript:alert(1)", "\tjavascript:alert(1)",
        "\u{0}javascript:x", "java\nscript:alert(1)", "\u{1F}https://x", "https://exa mple.com", "https://é.com",
        "https://example.com/\u{7F}", "example.com", "/relative/path", "//example.com", ":nothing", "1http://x",
        "ht tp://x", "", "https://example.com/" + String(repeating: "a", count: 2029), "\u{200B}https://x",
    ])
    func refusedURLs(url: String) {
        guard case .invalidField(let field, _)? = MessageRules.check(url: url, field: "click") else {
            Issue.record("\(url.debugDescription) was accepted")
            return
        }
        #expect(field == "click")
    }

    /// Each refused message is refused as a new one and as a change, naming its field, and the
    /// engine is as it was: the version, the message and the queue.
    @Test(arguments: [
        ("4 actions", "actions"), ("duplicate ids", "actions[1].id"), ("41-character label", "actions[0].label"),
        ("empty label", "actions[0].label"), ("blank label", "actions[2].label"), ("bad id", "actions[0].id"),
        ("empty id", "actions[0].id"), ("33-character id", "actions[0].id"), ("action url", "actions[1].url"),
        ("click", "click"), ("empty accessibility label", "accessibilityLabel"),
        ("257-character accessibility label", "accessibilityLabel"),
    ])
    func refusedInputs(_ name: String, field: String) throws {
        var input = MessageInput()
        let ok = MessageAction(id: "ok", label: "OK")
        switch name {
        case "4 actions":
            input.actions = (0..<4).map { MessageAction(id: "a\($0)", label: "A") }
        case "duplicate ids": input.actions = [ok, MessageAction(id: "ok", label: "Again")]
        case "41-character label": input.actions = [MessageAction(id: "a", label: String(repeating: "x", count: 41))]
        case "empty label": input.actions = [MessageAction(id: "a", label: "")]
        case "blank label":
            input.actions = [ok, MessageAction(id: "b", label: "B"), MessageAction(id: "c", label: " \t ")]
        case "bad id": input.actions = [MessageAction(id: "a b", label: "A")]
        case "empty id": input.actions = [MessageAction(id: "", label: "A")]
        case "33-character id": input.actions = [MessageAction(id: String(repeating: "i", count: 33), label: "A")]
        case "action url": input.actions = [ok, MessageAction(id: "b", label: "B", url: "javascript:x")]
        case "click": input.click = .some("data:text/html,x")
        case "empty accessibility label": input.accessibilityLabel = .some("  ")
        default: input.accessibilityLabel = .some(String(repeating: "x", count: 257))
        }
        var engine = makeEngine()
        try engine.posted(.message("shown"), at: .zero)
        let before = engine
        var new = input
        new.text = "new"
        let posted = engine.post(new, at: .zero)
        #expect(posted.value.refusedField == field, "\(name)")
        #expect(posted.changes.isEmpty)
        let patched = engine.update(id: 1, with: input, at: .zero)
        #expect(patched.value.refusedField == field, "\(name)")
        #expect(patched.changes.isEmpty)
        #expect(engine == before)
    }

    /// At the edges: 3 actions, a 32-character id, a 40-character label (of combining marks too:
    /// characters are grapheme clusters), a 256-character accessibility label, both trimmed.
    @Test func theLongestAccepted() throws {
        var engine = makeEngine()
        var input = MessageInput.message("edges")
        let id = String(repeating: "A-z_9", count: 6) + "xy"
        let label = String(repeating: "e\u{301}", count: 40)
        input.actions = [
            MessageAction(id: id, label: " " + label + " "),
            MessageAction(id: "b", label: String(repeating: "b", count: 40)),
            MessageAction(id: "c", label: "😀", url: "https://example.com"),
        ]
        input.accessibilityLabel = .some(" " + String(repeating: "l", count: 256) + "\n")
        let message = try engine.posted(input, at: .zero)
        #expect(message.actions.map(\.id) == [id, "b", "c"])
        #expect(message.actions[0].label == label)
        #expect(message.accessibilityLabel == String(repeating: "l", count: 256))
    }
}
