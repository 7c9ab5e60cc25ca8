import Testing

@testable import OverlayEngine

/// The `GET /overlay` example of MODEL §5, reproduced by an event script on the default configuration.
@Suite("MODEL §5 example")
struct ExampleTests {
    /// Two messages posted and deleted at 0 (each hide from the very start takes no time), then at 1.0
    /// a sending message and two more: at 1.125 the overlay is halfway into its show, version 7.
    @Test func overlayExample() throws {
        var engine = makeEngine()
        let a = try engine.posted(.message("a"), at: .seconds(0))
        try engine.deleted(a.id, at: .seconds(0))
        let b = try engine.posted(.message("b"), at: .seconds(0))
        try engine.deleted(b.id, at: .seconds(0))
        let sending = try engine.posted(.message("Sending…", kind: .sending), at: .seconds(1.0))
        try engine.posted(.message("Sent"), at: .seconds(1.0))
        try engine.posted(.message("More"), at: .seconds(1.0))
        #expect([a.id, b.id, sending.id] == [1, 2, 3])

        let overlay = engine.overlay(at: .seconds(1.125))
        #expect(overlay.version == 7)
        #expect(overlay.now == .seconds(1.125))
        #expect(overlay.phase == .showing)
        #expect(overlay.orientation == .portrait)
        #expect(overlay.rotation == 0)
        #expect(overlay.device.name == "ipad")
        #expect(overlay.frame == Rect(x: 0, y: 0, width: 768, height: 20))
        #expect(overlay.contentOffset == -10)
        #expect(overlay.alpha == 1)
        #expect(overlay.message?.id == 3)
        #expect(overlay.message?.kind == .sending)
        #expect(overlay.message?.text == "Sending…")
        #expect(overlay.message?.progress == nil)
        #expect(overlay.message?.state == .showing)
        #expect(overlay.label == Label(text: "Sending…", frame: Rect(x: 30, y: -10, width: 708, height: 20)))
        #expect(overlay.style == Style(background: "#1C1C1E", foreground: "#FFFFFF"))
        #expect(overlay.activity == true)
        #expect(overlay.progressBar == nil)
        #expect(overlay.queued == 2)
        #expect(overlay.animation == .contentOffset(from: -20, to: 0, start: 1.0, duration: 0.25))
        #expect(overlay.curve == .linear)
    }
}
