import Testing

@testable import OverlayEngine

/// Each kind's style and activity spinner (MODEL §2), as the overlay reports them.
@Suite("Styles and activity (MODEL §2)")
struct StyleTests {
    /// MODEL §2's default colours, background then foreground, for each kind.
    static let defaults: [(MessageKind, String, String)] = [
        (.sending, "#1C1C1E", "#FFFFFF"),
        (.sent, "#34C759", "#FFFFFF"),
        (.failed, "#FF3B30", "#FFFFFF"),
        (.progress, "#007AFF", "#FFFFFF"),
        (.info, "#1C1C1E", "#FFFFFF"),
    ]

    /// The kind names are MODEL §2's.
    @Test func kindNames() {
        #expect(MessageKind.allCases.map(\.rawValue) == ["sending", "sent", "failed", "progress", "info"])
        #expect(
            MessageState.allCases.map(\.rawValue) == [
                "scheduled", "queued", "showing", "done", "cancelled", "preempted", "expired", "dismissed",
            ])
    }

    /// The shown message's kind picks the style; only `sending` shows the activity spinner.
    @Test(arguments: defaults)
    func styleAndActivity(kind: MessageKind, background: String, foreground: String) throws {
        var engine = makeEngine()
        try engine.posted(.message("m", kind: kind), at: .seconds(0))
        let overlay = engine.overlay(at: .seconds(0.125))
        #expect(overlay.style == Style(background: background, foreground: foreground))
        #expect(overlay.activity == (kind == .sending))
    }

    /// A configured style replaces the default for its kind.
    @Test func configuredStyle() throws {
        var engine = makeEngine { $0.styles[.info] = Style(background: "#000000", foreground: "#FFCC00") }
        try engine.posted(.message("m"), at: .seconds(0))
        #expect(engine.overlay(at: .seconds(1)).style == Style(background: "#000000", foreground: "#FFCC00"))
    }

    /// A PATCH of the kind changes the style and spinner at once.
    @Test func kindChangeRestyles() throws {
        var engine = makeEngine()
        try engine.posted(.message("Sending…", kind: .sending), at: .seconds(0))
        #expect(engine.overlay(at: .seconds(1)).activity)
        try engine.patched(1, MessageInput(kind: .failed, text: "Failed"), at: .seconds(1))
        let overlay = engine.overlay(at: .seconds(1))
        #expect(overlay.activity == false)
        #expect(overlay.style == Style(background: "#FF3B30", foreground: "#FFFFFF"))
        #expect(overlay.label?.text == "Failed")
    }

    /// A hidden overlay has no style and no spinner.
    @Test func hiddenHasNone() {
        let overlay = makeEngine().overlay(at: .seconds(0))
        #expect(overlay.style == nil)
        #expect(overlay.activity == false)
    }
}
