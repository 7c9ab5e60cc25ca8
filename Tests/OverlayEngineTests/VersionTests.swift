import Testing

@testable import OverlayEngine

/// `version` (MODEL §5, used by §§2–4's events): exactly one bump per event that changes something
/// and one per deadline reached; none for no-op events, interpolated values or reads.
@Suite("Version")
struct VersionTests {
    /// A post bumps once; the show's end, the message's end and the hide's end bump once each.
    @Test func oneBumpPerEventAndDeadline() throws {
        var engine = makeEngine()
        #expect(engine.version == 0)
        try engine.posted(.message("a"), at: .seconds(0))
        #expect(engine.version == 1)
        engine.advance(to: .seconds(0.25))
        #expect(engine.version == 2)
        engine.advance(to: .seconds(2.75))
        #expect(engine.version == 3)
        engine.advance(to: .seconds(3))
        #expect(engine.version == 4)
        engine.advance(to: .seconds(100))
        #expect(engine.version == 4)
    }

    /// An event first reaches the deadlines before it, one version each, then bumps once itself.
    @Test func eventAfterSeveralDeadlines() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.posted(.message("b"), at: .seconds(10))
        #expect(engine.version == 5)
    }

    /// Interpolated values between changes keep the version; reading changes nothing.
    @Test func readsAndInterpolationKeepVersion() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        let early = engine.overlay(at: .seconds(0.1))
        let later = engine.overlay(at: .seconds(0.2))
        #expect(early.version == 1)
        #expect(later.version == 1)
        #expect(early.contentOffset != later.contentOffset)

        // Reading ahead shows the version the engine will have there, without advancing it.
        #expect(engine.overlay(at: .seconds(3)).version == 4)
        #expect(engine.version == 1)
        #expect(engine.now == .seconds(0))
        #expect(engine.phase == .showing)
        _ = engine.message(id: 1)
        _ = engine.liveMessages
        _ = engine.nextDeadline
        #expect(engine.version == 1)
    }

    /// Each kind of change bumps exactly once: a queued post, a PATCH, a keyed update, an orientation,
    /// a DELETE of the shown message that hides at once.
    @Test func eachChangeBumpsOnce() throws {
        var engine = makeEngine()
        try engine.posted(.message("a", key: "k"), at: .seconds(0))
        try engine.posted(.message("b"), at: .seconds(0))
        #expect(engine.version == 2)
        try engine.patched(2, MessageInput(text: "b2"), at: .seconds(0))
        #expect(engine.version == 3)
        _ = engine.post(MessageInput(progress: 0.5, key: "k"), at: .seconds(0)).value
        #expect(engine.version == 4)
        try engine.deleted(2, at: .seconds(0))
        #expect(engine.version == 5)
        try engine.deleted(1, at: .seconds(0))
        #expect(engine.version == 6)
        #expect(engine.phase == .hidden)
        engine.changeOrientation(to: .landscapeLeft, at: .seconds(0))
        #expect(engine.version == 7)
    }

    /// An immediate message that preempts the shown one is one change.
    @Test func immediateBumpsOnce() throws {
        var engine = makeEngine()
        try engine.posted(.message("Sending…", kind: .sending), at: .seconds(0))
        engine.advance(to: .seconds(1))
        let version = engine.version
        try engine.posted(.message("b", immediate: true), at: .seconds(1))
        #expect(engine.version == version + 1)
    }

    /// A rotation: one for the event, one when rotatingOut ends, one when rotatingIn ends.
    @Test func rotationBumps() throws {
        var engine = makeEngine()
        try engine.posted(.message("a", duration: 100), at: .seconds(0))
        engine.advance(to: .seconds(1))
        #expect(engine.version == 2)
        engine.changeOrientation(to: .landscapeLeft, at: .seconds(1))
        #expect(engine.version == 3)
        #expect(engine.overlay(at: .seconds(1.2)).version == 3)
        #expect(engine.overlay(at: .seconds(1.4)).version == 4)
        #expect(engine.overlay(at: .seconds(1.8)).version == 5)
    }

    /// No-op events leave the version: an unchanged orientation or device, a PATCH that changes
    /// nothing, refusals of every kind, and advancing to the present.
    @Test func noOpsKeepVersion() throws {
        var engine = makeEngine { $0.maxQueue = 1 }
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.posted(.message("b"), at: .seconds(0))
        engine.advance(to: .seconds(1))
        let version = engine.version

        engine.changeOrientation(to: .portrait, at: .seconds(1))
        engine.changeDevice(to: .ipad, at: .seconds(1))
        _ = engine.update(id: 2, with: MessageInput(text: "b"), at: .seconds(1)).value
        _ = engine.update(id: 2, with: MessageInput(), at: .seconds(1)).value
        _ = engine.update(id: 9, with: MessageInput(text: "x"), at: .seconds(1)).value
        _ = engine.delete(id: 9, at: .seconds(1)).value
        _ = engine.post(.message(""), at: .seconds(1)).value
        _ = engine.post(.message("c"), at: .seconds(1)).value
        engine.advance(to: .seconds(1))
        #expect(engine.version == version)
        #expect(engine.queue.map(\.id) == [2])
    }

    /// The version continues from where the driver says it stood, so it never repeats across restarts.
    @Test func continuesFromGivenVersion() throws {
        var engine = OverlayEngine(configuration: EngineConfiguration(), version: 41, nextID: 8)
        let message = try engine.posted(.message("a"), at: .seconds(0))
        #expect(engine.version == 42)
        #expect(message.id == 8)
    }
}
