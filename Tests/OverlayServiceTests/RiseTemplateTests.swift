import OverlayEngine
import Testing

@testable import OverlayService

/// The fast read path through rises: a version's template fills in both labels' y from the moving
/// `labelOffset`, to the same bytes as the snapshot encoded in full.
@Suite("Overlay template: the rise")
struct RiseTemplateTests {
    /// Every 10 ms for 5 s on the island iPhone in each presentation: a message replaced by the
    /// next (a rise), its text changed during the rise (a second one from the first's end), an
    /// immediate message, a rotation during a rise, and the hide.
    @Test(arguments: [Presentation.pill, .fullWidth, .statusBar])
    func fillingMatchesFullEncoding(presentation: Presentation) throws {
        var configuration = EngineConfiguration()
        configuration.device = .iphone15Pro
        configuration.presentation = presentation
        configuration.messageChange = .rise
        configuration.text = TextMetrics(name: "test") { text, role in Double(text.count) * (role == .title ? 7 : 6) }
        var engine = OverlayEngine(configuration: configuration)
        let events: [Int: (inout OverlayEngine, Instant) -> Void] = [
            0: { engine, now in
                _ = engine.post(
                    MessageInput(text: "Uploading", subtitle: "photo.jpg", duration: .seconds(0.5)), at: now)
                _ = engine.post(MessageInput(kind: .sent, text: "Uploaded"), at: now)
            },
            // The rise runs 0.75 → 1.35; the text changes half way.
            105: { engine, now in _ = engine.update(id: 2, with: MessageInput(text: "Uploaded: 1 photo"), at: now) },
            200: { engine, now in
                _ = engine.post(MessageInput(kind: .failed, text: "Failed", immediate: true), at: now)
            },
            230: { engine, now in _ = engine.changeOrientation(to: .landscapeLeft, at: now) },
        ]
        let rising = fillEveryStep(&engine, steps: 500, events: events).count { $0.outgoing != nil }
        // 0.75 → 1.05 (30 steps), 1.05 → 1.65 (60), 2.0 → 2.3 (30, ended by the rotation).
        #expect(rising == 120)
        #expect(engine.overlay(at: .seconds(5)).phase == .visible)
    }
}
