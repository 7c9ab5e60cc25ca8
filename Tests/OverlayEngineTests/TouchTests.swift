import Testing

@testable import OverlayEngine

/// A finger on the overlay (§10 "Touch"), on the default iPad in portrait (Hw = 20): an `info`
/// message posted at 0 is shown 0 → 0.25 and its 2.5 s end at 2.75. A hold keeps the shown
/// message from ending by its time until the release, `maxHoldSeconds` (30) after it began, or
/// the end of a hide; a dismiss ends the shown message now as `dismissed`.
@Suite("Touch: hold, release, dismiss (§10)")
struct TouchTests {
    /// An engine with `a` shown from 0 and, when `queued`, `b` waiting behind it.
    static func engine(
        queued: Bool = false, _ configure: (inout EngineConfiguration) -> Void = { _ in }
    ) throws -> OverlayEngine {
        var engine = makeEngine(configure)
        try engine.posted(.message("a"), at: .seconds(0))
        if queued { try engine.posted(.message("b"), at: .seconds(0)) }
        return engine
    }

    /// Nothing to hold or swipe when nothing is shown: before any message, while the ended one
    /// hides, and once hidden. The refusal changes nothing.
    @Test func nothingShown() throws {
        var engine = makeEngine()
        let fresh = engine.hold(at: .seconds(0))
        #expect(fresh.value == .failure(.nothingShown))
        #expect(fresh.changes.isEmpty)
        #expect(engine.dismiss(at: .seconds(0)).value == .failure(.nothingShown))
        #expect(engine.version == 0)

        try engine.posted(.message("a"), at: .seconds(0))
        let hiding = engine.at(2.8)
        #expect(hiding.phase == .hiding)
        #expect(engine.hold(at: .seconds(2.8)).value == .failure(.nothingShown))
        #expect(engine.dismiss(at: .seconds(2.8)).value == .failure(.nothingShown))
        #expect(engine.version == hiding.version)
        #expect(engine.hold(at: .seconds(4)).value == .failure(.nothingShown))
        #expect(engine.heldSince == nil)
    }

    /// Held at 1, the message outlives its 2.75: still shown at 10. A second hold changes nothing;
    /// the release at 10 is one version and ends it then (`done`, hiding from 10). A release
    /// without a hold changes nothing.
    @Test func aHoldPastTheMessagesTime() throws {
        var engine = try Self.engine()
        #expect(engine.at(1).version == 2)
        let held = engine.hold(at: .seconds(1))
        #expect(held.value == .success(true))
        #expect(engine.version == 3)
        #expect(engine.at(1).heldSince == .seconds(1))
        #expect(engine.nextDeadline == .seconds(31))

        #expect(engine.hold(at: .seconds(5)).value == .success(false))
        #expect(engine.version == 3)
        #expect(engine.heldSince == .seconds(1))

        let late = engine.at(10)
        #expect(late.phase == .visible)
        #expect(late.message?.state == .showing)
        #expect(late.version == 3)

        #expect(engine.release(at: .seconds(10)).value)
        #expect(engine.version == 4)
        let released = engine.at(10)
        #expect(released.heldSince == nil)
        #expect(released.message?.state == .done)
        #expect(engine.message(id: 1)?.endedAt == .seconds(10))
        #expect(released.animation == .contentOffset(from: 0, to: -20, start: 10, duration: 0.25))

        let again = engine.release(at: .seconds(10.1))
        #expect(!again.value)
        #expect(engine.version == 4)
    }

    /// A release before the message's time changes only the hold: the time ran on and ends at 2.75.
    @Test func aReleaseBeforeTheTime() throws {
        var engine = try Self.engine()
        engine.hold(at: .seconds(1))
        #expect(engine.release(at: .seconds(2)).value)
        #expect(engine.at(2).message?.state == .showing)
        #expect(engine.at(2.749_999_999).phase == .visible)
        #expect(engine.at(2.75).message?.state == .done)
    }

    /// A hold ends by itself 30 s after it began, as a release: the message whose time ran out
    /// ends then. `maxHoldDuration` sets that length.
    @Test(arguments: [30.0, 5])
    func theLongestHold(_ seconds: Double) throws {
        var engine = try Self.engine { $0.maxHoldDuration = .seconds(seconds) }
        #expect(EngineConfiguration().maxHoldDuration == .seconds(30))
        engine.hold(at: .seconds(1))
        let end = 1 + seconds
        #expect(engine.at(end - 0.000_000_001).heldSince == .seconds(1))
        #expect(engine.at(end - 0.000_000_001).phase == .visible)
        let ended = engine.at(end)
        #expect(ended.heldSince == nil)
        #expect(ended.message?.state == .done)
        #expect(ended.version == 4)
        #expect(ended.animation == .contentOffset(from: 0, to: -20, start: end, duration: 0.25))
    }

    /// A sticky message whose time has not run out stays when the longest hold ends.
    @Test func theLongestHoldOfAStickyMessage() throws {
        var engine = makeEngine()
        try engine.posted(.message("Sending…", kind: .sending), at: .seconds(0))
        engine.hold(at: .seconds(1))
        let after = engine.at(31)
        #expect(after.heldSince == nil)
        #expect(after.phase == .visible)
        #expect(after.message?.state == .showing)
    }

    /// The hold is on the overlay, not on one message: a DELETE during it ends `a` as usual and
    /// `b` replaces it at once; `b` too outlives its time until the release.
    @Test func aHoldAcrossAReplacement() throws {
        var engine = try Self.engine(queued: true)
        engine.hold(at: .seconds(1))
        #expect(engine.at(2.75).message?.id == 1)
        #expect(try engine.deleted(1, at: .seconds(3)).state == .cancelled)
        let replaced = engine.at(3)
        #expect(replaced.phase == .visible)
        #expect(replaced.message?.id == 2)
        #expect(replaced.heldSince == .seconds(1))
        #expect(engine.current?.displayStartedAt == .seconds(3))
        #expect(engine.at(10).message?.state == .showing)
        engine.release(at: .seconds(10))
        #expect(engine.message(id: 2)?.state == .done)
        #expect(engine.message(id: 2)?.endedAt == .seconds(10))
        #expect(engine.at(10).phase == .hiding)
    }

    /// An immediate message preempts the held one as usual; the hold stays on the overlay.
    @Test func anImmediateMessageDuringAHold() throws {
        var engine = try Self.engine()
        engine.hold(at: .seconds(1))
        try engine.posted(.message("now", immediate: true), at: .seconds(2))
        #expect(engine.message(id: 1)?.state == .preempted)
        let overlay = engine.at(2)
        #expect(overlay.message?.id == 2)
        #expect(overlay.heldSince == .seconds(1))
        #expect(engine.at(20).message?.state == .showing)
    }

    /// A PATCH during a hold changes the message at once; the duration it sets runs, and a time
    /// that ran out ends the message at the release.
    @Test func aPatchDuringAHold() throws {
        var engine = try Self.engine()
        engine.hold(at: .seconds(1))
        let version = engine.version
        let patched = try engine.patched(1, MessageInput(text: "b", duration: .seconds(1)), at: .seconds(2))
        #expect(patched.deadline == .seconds(3))
        #expect(engine.version == version + 1)
        #expect(engine.at(5).label?.text == "b")
        #expect(engine.at(5).message?.state == .showing)
        engine.release(at: .seconds(5))
        #expect(engine.message(id: 1)?.endedAt == .seconds(5))
    }

    /// A rotation runs as usual during a hold, which outlasts it.
    @Test func aRotationDuringAHold() throws {
        var engine = try Self.engine()
        engine.hold(at: .seconds(1))
        engine.changeOrientation(to: .landscapeLeft, at: .seconds(2))
        #expect(engine.at(2).phase == .rotatingOut)
        let rotated = engine.at(2.8)
        #expect(rotated.phase == .visible)
        #expect(rotated.orientation == .landscapeLeft)
        #expect(rotated.heldSince == .seconds(1))
        #expect(rotated.message?.state == .showing)
    }

    /// The hold ends when the overlay finishes hiding: a DELETE's hide keeps it until its end,
    /// and the next message is not held.
    @Test func aHoldEndsWithTheHide() throws {
        var engine = try Self.engine()
        engine.hold(at: .seconds(1))
        try engine.deleted(1, at: .seconds(2))
        #expect(engine.at(2.1).heldSince == .seconds(1))
        #expect(engine.at(2.25).phase == .hidden)
        #expect(engine.at(2.25).heldSince == nil)
        try engine.posted(.message("next"), at: .seconds(3))
        #expect(engine.at(5.75).message?.state == .done)
    }

    /// A status bar hidden during a hold hides the overlay beside it as usual: the message goes
    /// back to the head of the queue and the hold ends with the hide.
    @Test func aStatusBarHideDuringAHold() throws {
        var engine = try Self.engine()
        engine.hold(at: .seconds(1))
        try engine.setBar(hidden: true, animation: .slide, at: 1.5)
        #expect(engine.at(1.5).phase == .hiding)
        let hidden = engine.at(1.75)
        #expect(hidden.phase == .hidden)
        #expect(hidden.heldSince == nil)
        #expect(engine.queue.first?.id == 1)
        #expect(engine.queue.first?.state == .queued)
    }

    /// Swiped up with nothing queued: the message ends now as `dismissed` (answered as it ended,
    /// one version), stays in the history so, and the overlay slides out.
    @Test func aDismissThatHides() throws {
        var engine = try Self.engine()
        let version = engine.at(1).version
        let dismissed = try engine.dismiss(at: .seconds(1)).value.get()
        #expect(dismissed.id == 1)
        #expect(dismissed.state == .dismissed)
        #expect(dismissed.endedAt == .seconds(1))
        #expect(engine.version == version + 1)
        #expect(engine.history.last?.state == .dismissed)
        let hiding = engine.at(1)
        #expect(hiding.phase == .hiding)
        #expect(hiding.animation == .contentOffset(from: 0, to: -20, start: 1, duration: 0.25))
        #expect(engine.dismiss(at: .seconds(1.1)).value == .failure(.nothingShown))
        #expect(engine.at(1.25).phase == .hidden)
    }

    /// Swiped up with a message waiting: it replaces the dismissed one at once, with no animation,
    /// and its time starts then.
    @Test func aDismissThatReplaces() throws {
        var engine = try Self.engine(queued: true)
        #expect(try engine.dismiss(at: .seconds(1)).value.get().state == .dismissed)
        let replaced = engine.at(1)
        #expect(replaced.phase == .visible)
        #expect(replaced.animation == nil)
        #expect(replaced.message?.id == 2)
        #expect(replaced.queued == 0)
        #expect(engine.current?.displayStartedAt == .seconds(1))
        #expect(engine.at(3.499_999_999).message?.id == 2)
        #expect(engine.at(3.5).message?.state == .done)
    }

    /// Swiped up during a rotation: the message ends at once, and as with a DELETE the next one
    /// replaces it (or the overlay hides) when the rotation's fade-in ends, at 1 + 0.4 + 0.4.
    @Test(arguments: [true, false])
    func aDismissDuringARotation(_ queued: Bool) throws {
        var engine = try Self.engine(queued: queued)
        engine.changeOrientation(to: .landscapeRight, at: .seconds(1))
        #expect(try engine.dismiss(at: .seconds(1.2)).value.get().state == .dismissed)
        let rotating = engine.at(1.2)
        #expect(rotating.phase == .rotatingOut)
        #expect(rotating.message?.state == .dismissed)
        #expect(engine.at(1.5).phase == .rotatingIn)
        let done = engine.at(1.8)
        #expect(done.orientation == .landscapeRight)
        if queued {
            #expect(done.phase == .visible)
            #expect(done.message?.id == 2)
            #expect(done.message?.state == .showing)
        } else {
            #expect(done.phase == .hiding)
            #expect(done.animation == .contentOffset(from: 0, to: -20, start: 1.8, duration: 0.25))
        }
    }

    /// A restart releases a hold: `restored` leaves it, while `exactly` (a rollback within one
    /// run) keeps it.
    @Test func aRestartReleasesTheHold() throws {
        var engine = try Self.engine()
        engine.hold(at: .seconds(1))
        let stored = StoredEngine(engine)
        #expect(stored.state.heldSince == .seconds(1))
        let restarted = stored.restore(now: .seconds(2)).value
        #expect(restarted.heldSince == nil)
        #expect(restarted.at(2).heldSince == nil)
        #expect(restarted.at(2).phase == .showing)
        let rolledBack = OverlayEngine.exactly(
            configuration: engine.configuration, state: stored.state, live: stored.live, history: stored.history,
            devices: [:])
        #expect(rolledBack.heldSince == .seconds(1))
        #expect(rolledBack.at(10).message?.state == .showing)
    }
}
