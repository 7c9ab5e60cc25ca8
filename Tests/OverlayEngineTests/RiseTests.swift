import Testing

@testable import OverlayEngine

/// MTStatusBarOverlay's rise (docs/MODEL.md §14) on the default ipad (statusBar, h = Hc = 20) in
/// portrait: "a" (1 s) is posted at 0, shown 0 → 0.25 and displayed 0.25 → 1.25; "b" (info,
/// 2.5 s) waits, and rises in 1.25 → 1.85, where its time starts.
@Suite("The rise (MODEL §14)")
struct RiseTests {
    static func engine(_ configure: (inout EngineConfiguration) -> Void = { _ in }) -> OverlayEngine {
        makeEngine {
            $0.messageChange = .rise
            configure(&$0)
        }
    }

    /// "a" shown, "b" waiting.
    static func twoMessages(_ configure: (inout EngineConfiguration) -> Void = { _ in }) throws -> OverlayEngine {
        var engine = engine(configure)
        try engine.posted(.message("a", duration: 1), at: .seconds(0))
        try engine.posted(.message("b"), at: .seconds(0.1))
        return engine
    }

    /// e(f) of the rise's curve.
    static func e(_ fraction: Double) -> Double { Curve.easeInOut.value(at: fraction) }

    /// With the default `instant` the next message replaces the shown one at once, as before.
    @Test func instantByDefault() throws {
        var engine = makeEngine()
        try engine.posted(.message("a", duration: 1), at: .seconds(0))
        try engine.posted(.message("b"), at: .seconds(0.1))
        let overlay = engine.at(1.25)
        #expect(overlay.label?.text == "b")
        #expect(overlay.label?.frame.y == 0)
        #expect(overlay.outgoing == nil)
        #expect(overlay.animation == nil)
        #expect(overlay.message?.displayStartedAt == .seconds(1.25))
    }

    /// The next message rises in: at its start the outgoing label is at rest and the incoming one
    /// Hc below its resting y; half way each has moved Hc/2 (e(0.5) = 0.5); the replaced message
    /// ended at the rise's start, the incoming one is shown from it and displayed from its end.
    @Test func theNextMessageRisesIn() throws {
        var engine = try Self.twoMessages()
        engine.advance(to: .seconds(1.25))
        let start = engine.at(1.25)
        #expect(start.phase == .visible)
        #expect(start.animation == .rise(from: 20, start: 1.25))
        #expect(start.label?.text == "b")
        #expect(start.label?.frame == Rect(x: 30, y: 20, width: 708, height: 20))
        #expect(start.outgoing == Label(text: "a", frame: Rect(x: 30, y: 0, width: 708, height: 20)))
        #expect(engine.message(id: 1)?.state == .done)
        #expect(engine.message(id: 1)?.endedAt == .seconds(1.25))
        #expect(start.message?.shownAt == .seconds(1.25))
        #expect(start.message?.displayStartedAt == nil)

        let half = engine.at(1.55)
        #expect(half.label?.frame.y == 10)
        #expect(half.outgoing?.frame.y == -10)
        let quarter = engine.at(1.4)
        #expect(quarter.label?.frame.y == 20 * (1 - Self.e(0.25)))
        #expect(isClose(quarter.outgoing?.frame.y ?? 0, -20 * Self.e(0.25)))
        #expect(quarter.contentOffset == 0)
        #expect(quarter.alpha == 1)

        // The end of the rise is a deadline of its own: one version, and the label at rest.
        let before = engine.at(1.849_999_999)
        engine.advance(to: .seconds(1.85))
        #expect(engine.version == before.version + 1)
        let end = engine.at(1.85)
        #expect(end.outgoing == nil)
        #expect(end.animation == nil)
        #expect(end.label?.frame.y == 0)
        #expect(end.message?.displayStartedAt == .seconds(1.85))
        #expect(end.message?.deadline == .seconds(4.35))
        #expect(engine.at(4.35).phase == .hiding)
    }

    /// The rise eases in and out whatever the configured curve says.
    @Test func alwaysEaseInOut() throws {
        for curve in Curve.allCases {
            let engine = try Self.twoMessages { $0.curve = curve }
            #expect(engine.at(1.4).label?.frame.y == 20 * (1 - Self.e(0.25)))
        }
    }

    /// An immediate message rises in too; a finite one it replaces ends `preempted` at the start.
    @Test func anImmediateMessageRisesIn() throws {
        var engine = Self.engine()
        try engine.posted(.message("a", duration: 5), at: .seconds(0))
        try engine.posted(.message("now", immediate: true), at: .seconds(1))
        let overlay = engine.at(1.3)
        #expect(overlay.outgoing?.text == "a")
        #expect(overlay.label?.text == "now")
        #expect(overlay.animation == .rise(from: 20, start: 1))
        #expect(engine.message(id: 1)?.state == .preempted)
        #expect(engine.message(id: 1)?.endedAt == .seconds(1))
        #expect(engine.at(1.6).message?.displayStartedAt == .seconds(1.6))
    }

    /// A PATCH or a keyed POST of the shown message's text rises; its timer stays as it was.
    @Test func aTextChangeRises() throws {
        var engine = Self.engine()
        let sent = try engine.posted(.message("one", duration: 3, key: "k"), at: .seconds(0))
        try engine.patched(sent.id, .message("two"), at: .seconds(1))
        var overlay = engine.at(1)
        #expect(overlay.outgoing?.text == "one")
        #expect(overlay.label?.text == "two")
        #expect(overlay.message?.deadline == .seconds(3.25))
        #expect(overlay.message?.displayStartedAt == .seconds(0.25))

        guard case .success(.updated) = engine.post(.message("three", key: "k"), at: .seconds(2)).value else {
            Issue.record("the keyed POST did not update")
            return
        }
        overlay = engine.at(2)
        #expect(overlay.outgoing?.text == "two")
        #expect(overlay.animation == .rise(from: 20, start: 2))
        #expect(overlay.message?.deadline == .seconds(3.25))
    }

    /// A change that keeps the text (a progress step, a kind) does not rise.
    @Test func onlyTheTextRises() throws {
        var engine = Self.engine()
        let sent = try engine.posted(.message("load", kind: .progress, progress: 0.1), at: .seconds(0))
        try engine.patched(sent.id, .message("load", progress: 0.5), at: .seconds(1))
        #expect(engine.at(1).animation == nil)
        #expect(engine.at(1).outgoing == nil)
    }

    /// A change during a rise first completes it (the label that rose in at rest, its time started),
    /// then rises from that label.
    @Test func aChangeDuringARise() throws {
        var engine = try Self.twoMessages()
        try engine.patched(2, .message("b2"), at: .seconds(1.4))
        let overlay = engine.at(1.4)
        #expect(overlay.outgoing == Label(text: "b", frame: Rect(x: 30, y: 0, width: 708, height: 20)))
        #expect(overlay.label?.text == "b2")
        #expect(overlay.label?.frame.y == 20)
        #expect(overlay.animation == .rise(from: 20, start: 1.4))
        #expect(overlay.message?.displayStartedAt == .seconds(1.4))
        #expect(overlay.message?.deadline == .seconds(3.9))
    }

    /// A rotation during a rise completes it at once, then fades out as from a resting overlay.
    @Test func aRotationDuringARise() throws {
        var engine = try Self.twoMessages()
        engine.changeOrientation(to: .landscapeLeft, at: .seconds(1.4))
        let overlay = engine.at(1.4)
        #expect(overlay.phase == .rotatingOut)
        #expect(overlay.outgoing == nil)
        #expect(overlay.animation?.property == .alpha)
        #expect(overlay.label?.frame.y == 0)
        #expect(overlay.message?.displayStartedAt == .seconds(1.4))
    }

    /// A hide during a rise (the incoming message deleted, nothing waiting) completes it and slides
    /// out from rest; so does a status-bar hide, which takes the overlay away with it.
    @Test func aHideDuringARise() throws {
        var deleted = try Self.twoMessages()
        try deleted.deleted(2, at: .seconds(1.4))
        #expect(deleted.at(1.4).phase == .hiding)
        #expect(deleted.at(1.4).outgoing == nil)
        #expect(deleted.at(1.4).animation == .contentOffset(from: 0, to: -20, start: 1.4, duration: 0.25))

        var barHidden = try Self.twoMessages()
        try barHidden.setBar(hidden: true, animation: .slide, at: 1.4)
        #expect(barHidden.at(1.4).phase == .hiding)
        #expect(barHidden.at(1.4).outgoing == nil)
        #expect(barHidden.at(1.4).animation?.property == .contentOffset)
    }

    /// Outside `visible` the label changes at once: a message replaced during the show animation.
    @Test func noRiseOutsideVisible() throws {
        var engine = Self.engine()
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.posted(.message("b", immediate: true), at: .seconds(0.1))
        let overlay = engine.at(0.1)
        #expect(overlay.phase == .showing)
        #expect(overlay.outgoing == nil)
        #expect(overlay.animation?.property == .contentOffset)
    }

    /// A `riseDuration` of 0 changes the label at once.
    @Test func aZeroRiseIsInstant() throws {
        let engine = try Self.twoMessages { $0.riseDuration = .zero }
        #expect(engine.at(1.25).outgoing == nil)
        #expect(engine.at(1.25).message?.displayStartedAt == .seconds(1.25))
    }

    /// A new device or presentation during a rise ends it at rest in the new frame.
    @Test func aNewFrameCompletesTheRise() throws {
        var engine = try Self.twoMessages()
        engine.changePresentation(to: .fullWidth, at: .seconds(1.4))
        #expect(engine.at(1.4).outgoing == nil)
        #expect(engine.at(1.4).message?.displayStartedAt == .seconds(1.4))
        var device = try Self.twoMessages()
        device.changeDevice(to: .ipadPro11, at: .seconds(1.4))
        #expect(device.at(1.4).outgoing == nil)
    }

    /// A rollback rebuilds the rise exactly; a restart shows the message again from the start.
    @Test func aRollbackKeepsTheRiseARestartDoesNot() throws {
        let engine = try Self.twoMessages()
        var rising = engine
        rising.advance(to: .seconds(1.4))
        let stored = StoredEngine(rising)
        let exact = OverlayEngine.exactly(
            configuration: rising.configuration, state: stored.state, live: stored.live, history: stored.history,
            devices: [:])
        #expect(exact.rise == rising.rise)
        #expect(exact.transition == rising.transition)
        #expect(exact.at(1.55).outgoing == rising.at(1.55).outgoing)
        #expect(exact.at(1.55).label == rising.at(1.55).label)
        #expect(exact.at(1.55).outgoing?.frame.y == -10)

        let restarted = stored.restore(configuration: rising.configuration, now: .seconds(9)).value
        #expect(restarted.phase == .showing)
        #expect(restarted.at(9).outgoing == nil)
    }
}
