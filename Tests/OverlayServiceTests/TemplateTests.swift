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
        let events: [Int: (inout OverlayEngine, Instant) -> Void] = [
            0: { engine, now in
                _ = engine.post(MessageInput(kind: .progress, text: "Downloading", progress: 0.3), at: now)
            },
            80: { engine, now in _ = engine.changeOrientation(to: .landscapeLeft, at: now) },
            150: { engine, now in _ = engine.post(MessageInput(text: "Sent", immediate: true), at: now) },
            170: { engine, now in _ = engine.changeOrientation(to: .portraitUpsideDown, at: now) },
            450: { engine, now in _ = engine.update(id: 1, with: MessageInput(progress: 1), at: now) },
        ]
        #expect(fillEveryStep(&engine, steps: 800, events: events).count == 801)
        #expect(engine.overlay(at: .seconds(8)).phase == .hidden)
    }

    /// Every 10 ms for 4 s while the status bar hides and shows with each animation (and changes
    /// style) beside a shown message: the bar's alpha and offset move within a version too, and
    /// the filled template is still the snapshot encoded in full.
    @Test(arguments: [Curve.linear, .easeInOut])
    func statusBarMovesInTheTemplate(curve: Curve) throws {
        var configuration = EngineConfiguration()
        configuration.curve = curve
        var engine = OverlayEngine(configuration: configuration)
        func bar(_ input: StatusBarInput) -> (inout OverlayEngine, Instant) -> Void {
            { engine, now in _ = engine.setStatusBar(input, at: now) }
        }
        let events: [Int: (inout OverlayEngine, Instant) -> Void] = [
            0: { engine, now in _ = engine.post(MessageInput(kind: .sending, text: "Sending"), at: now) },
            50: bar(StatusBarInput(hidden: true, animation: .fade)),
            100: bar(StatusBarInput(hidden: false, animation: .slide)),
            110: bar(StatusBarInput(style: .darkContent)),
            200: bar(StatusBarInput(hidden: true)),
            210: { engine, now in _ = engine.changeDevice(to: .iphoneNotch, at: now) },
            300: bar(StatusBarInput(hidden: false, animation: StatusBarAnimation.none)),
        ]
        let moving = fillEveryStep(&engine, steps: 400, events: events).count {
            $0.statusBar.animation != nil
        }
        // The fade out, the slide in and the slide out ran 25 steps each.
        #expect(moving == 75)
        #expect(engine.overlay(at: .seconds(4)).statusBar.alpha == 1)
    }
}

/// The template with the presentations of today: every frame of the content (the pill, the
/// label, the subtitle, the accessory, the progress bar) is a slot that moves with contentOffset.
@Suite("Overlay template, presentations")
struct PresentationTemplateTests {
    /// Every 10 ms for 4 s through a bounce, a slide and a fade on the island iPhone, in each
    /// presentation, with a subtitle, an icon and a progress bar: filled, the template is the
    /// snapshot encoded in full.
    @Test(arguments: [Presentation.pill, .fullWidth, .statusBar])
    func fillingMatchesFullEncoding(presentation: Presentation) throws {
        var configuration = EngineConfiguration()
        configuration.device = .iphone15Pro
        configuration.presentation = presentation
        configuration.showStyle = .bounce
        configuration.text = TextMetrics(name: "test") { text, role in Double(text.count) * (role == .title ? 7 : 6) }
        var engine = OverlayEngine(configuration: configuration)
        let events: [Int: (inout OverlayEngine, Instant) -> Void] = [
            0: { engine, now in
                _ = engine.post(
                    MessageInput(
                        kind: .progress, text: "Downloading", subtitle: "photos.zip", icon: "⬇️", progress: 0.3),
                    at: now)
            },
            40: { engine, now in _ = engine.hold(at: now) },
            120: { engine, now in _ = engine.update(id: 1, with: MessageInput(subtitle: .some(nil)), at: now) },
            150: { engine, now in _ = engine.release(at: now) },
            160: { engine, now in
                _ = engine.post(MessageInput(kind: .sending, text: "Sending", immediate: true), at: now)
            },
            // The sending message swiped away: the download it preempted comes back, then goes too.
            200: { engine, now in _ = engine.dismiss(at: now) },
            220: { engine, now in _ = engine.dismiss(at: now) },
        ]
        let moved = fillEveryStep(&engine, steps: 400, events: events).count {
            $0.animation != nil && $0.label != nil
        }
        // The bounce in (75 steps) and, after the second dismiss at 2.2 s, the slide out (25).
        #expect(moved == 100)
        #expect(engine.overlay(at: .seconds(4)).phase == .hidden)
    }
}
