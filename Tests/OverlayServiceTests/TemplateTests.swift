import OverlayEngine
import Testing

@testable import OverlayService

/// The fast read path: between deadlines a GET fills the version's template with the engine's
/// moving values instead of encoding a whole snapshot. Both must give the same bytes.
@Suite("Overlay template")
struct TemplateTests {
    /// Every 10 ms for 8 s through slides or fades, a progress bar, an immediate message, both halves
    /// of two rotations, a completed download and its hide: the moving values are the snapshot's, and the filled template is the
    /// snapshot encoded in full.
    @Test(arguments: [ShowStyle.slide, .fade])
    func fillingMatchesFullEncoding(style: ShowStyle) throws {
        var configuration = EngineConfiguration()
        configuration.showStyle = style
        var engine = OverlayEngine(configuration: configuration)
        let encoder = OverlayEncoder(streamBufferBytes: 1 << 16)
        let events: [Int: (inout OverlayEngine, Instant) -> Void] = [
            0: { engine, now in
                _ = engine.post(MessageInput(kind: .progress, text: "Downloading", progress: 0.3), at: now)
            },
            80: { engine, now in _ = engine.changeOrientation(to: .landscapeLeft, at: now) },
            150: { engine, now in _ = engine.post(MessageInput(text: "Sent", immediate: true), at: now) },
            170: { engine, now in _ = engine.changeOrientation(to: .portraitUpsideDown, at: now) },
            450: { engine, now in _ = engine.update(id: 1, with: MessageInput(progress: 1), at: now) },
        ]
        var checked = 0
        for step in 0...800 {
            let now = Instant(nanoseconds: Int64(step) * 10_000_000)
            engine.advance(to: now)
            events[step]?(&engine, now)
            let overlay = engine.overlay(at: now)
            #expect(engine.movingValues(at: now) == MovingValues(overlay), "at \(now)")
            let filled = encoder.response(engine.movingValues(at: now), encoder.template(overlay)).body
            #expect(filled == encoder.body(overlay), "at \(now): \(String(decoding: filled, as: UTF8.self))")
            checked += 1
        }
        #expect(checked == 801)
        #expect(engine.overlay(at: .seconds(8)).phase == .hidden)
    }
}
