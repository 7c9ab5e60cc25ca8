import Testing

@testable import OverlayEngine

/// `immediate: true` in every phase (MODEL §3, docs/BEHAVIOUR.md): it replaces the shown message at
/// once; a replaced sticky message goes back to the head of the queue, any other ends `preempted`;
/// hidden or hiding, it goes to the head of the queue.
@Suite("Immediate messages (MODEL §3)")
struct ImmediateTests {
    /// Hidden: the immediate message is the head of an empty queue, so it starts showing at once.
    @Test func whileHidden() throws {
        var engine = makeEngine()
        let message = try engine.posted(.message("now", immediate: true), at: .seconds(1))
        #expect(message.state == .showing)
        let overlay = engine.overlay(at: .seconds(1))
        #expect(overlay.phase == .showing)
        #expect(overlay.message?.id == message.id)
        #expect(overlay.queued == 0)
        #expect(engine.overlay(at: .seconds(1.25 + 2.5)).phase == .hiding)
    }

    /// Hiding: the immediate message goes ahead of those already waiting, and shows when the hide ends.
    @Test func whileHiding() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.posted(.message("b"), at: .seconds(2.8))
        try engine.posted(.message("c", immediate: true), at: .seconds(2.9))
        #expect(engine.queue.map(\.id) == [3, 2])
        #expect(engine.overlay(at: .seconds(2.9)).phase == .hiding)
        #expect(engine.overlay(at: .seconds(2.9)).message?.id == 1)

        let shown = engine.overlay(at: .seconds(3))
        #expect(shown.phase == .showing)
        #expect(shown.message?.id == 3)
        #expect(shown.queued == 1)
    }

    /// Showing: the new message takes over the running show animation, and its time starts at its end;
    /// the replaced finite message ends `preempted`.
    @Test func whileShowing() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.posted(.message("b", kind: .sent, immediate: true), at: .seconds(0.1))

        let overlay = engine.overlay(at: .seconds(0.125))
        #expect(overlay.phase == .showing)
        #expect(overlay.message?.id == 2)
        #expect(overlay.contentOffset == -10)
        #expect(overlay.animation?.start == .seconds(0))
        #expect(overlay.queued == 0)
        #expect(engine.message(id: 1)?.state == .preempted)
        #expect(engine.message(id: 1)?.endedAt == .seconds(0.1))

        #expect(engine.overlay(at: .seconds(0.25)).message?.displayStartedAt == .seconds(0.25))
        #expect(engine.overlay(at: .seconds(2.249_999_999)).phase == .visible)
        #expect(engine.overlay(at: .seconds(2.25)).phase == .hiding)
    }

    /// Showing: a replaced sticky message goes back to the head of the queue, as if never shown.
    @Test func stickyRequeuedWhileShowing() throws {
        var engine = makeEngine()
        try engine.posted(.message("Sending…", kind: .sending), at: .seconds(0))
        try engine.posted(.message("b", immediate: true), at: .seconds(0.1))
        let requeued = try #require(engine.queue.first)
        #expect(requeued.id == 1)
        #expect(requeued.state == .queued)
        #expect(requeued.shownAt == nil)
        #expect(requeued.displayStartedAt == nil)
        #expect(requeued.endedAt == nil)
        #expect(engine.overlay(at: .seconds(0.1)).queued == 1)
        #expect(engine.liveMessages.map(\.id) == [2, 1])
    }

    /// Visible: the immediate message replaces the shown one at once, with its time starting then.
    @Test func whileVisible() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.posted(.message("b", immediate: true), at: .seconds(1))

        let overlay = engine.overlay(at: .seconds(1))
        #expect(overlay.phase == .visible)
        #expect(overlay.message?.id == 2)
        #expect(overlay.message?.displayStartedAt == .seconds(1))
        #expect(overlay.animation == nil)
        #expect(engine.message(id: 1)?.state == .preempted)
        #expect(engine.overlay(at: .seconds(3.499_999_999)).message?.id == 2)
        #expect(engine.overlay(at: .seconds(3.5)).phase == .hiding)
    }

    /// Visible: a replaced sticky message waits at the head of the queue, ahead of older waiting
    /// messages, and its maxStickySeconds start again when it is shown again.
    @Test func stickyRequeuedWhileVisible() throws {
        var engine = makeEngine()
        try engine.posted(.message("Sending…", kind: .sending), at: .seconds(0))
        try engine.posted(.message("c"), at: .seconds(0.5))
        try engine.posted(.message("b", immediate: true), at: .seconds(100))
        #expect(engine.queue.map(\.id) == [1, 2])
        #expect(engine.message(id: 1)?.state == .queued)

        let again = engine.overlay(at: .seconds(102.5))
        #expect(again.message?.id == 1)
        #expect(again.message?.state == .showing)
        #expect(again.message?.displayStartedAt == .seconds(102.5))
        #expect(again.queued == 1)
        #expect(engine.overlay(at: .seconds(402.499_999_999)).message?.id == 1)
        let expired = engine.overlay(at: .seconds(402.5))
        #expect(expired.message?.id == 2)
        var advanced = engine
        advanced.advance(to: .seconds(402.5))
        #expect(advanced.message(id: 1)?.state == .expired)
        #expect(advanced.message(id: 1)?.endedAt == .seconds(402.5))
    }

    /// A sticky progress message (below 1) is requeued too; a finished one (at 1) is preempted.
    @Test func progressStickiness() throws {
        var engine = makeEngine()
        try engine.posted(.message("Downloading", kind: .progress, progress: 0.5), at: .seconds(0))
        try engine.posted(.message("x", immediate: true), at: .seconds(1))
        #expect(engine.queue.map(\.id) == [1])

        var finished = makeEngine()
        try finished.posted(.message("Downloaded", kind: .progress, progress: 1), at: .seconds(0))
        try finished.posted(.message("x", immediate: true), at: .seconds(0.5))
        #expect(finished.queue.isEmpty)
        #expect(finished.message(id: 1)?.state == .preempted)
    }

    /// rotatingOut: the immediate message replaces the shown one at once and the rotation goes on.
    @Test func whileRotatingOut() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        engine.changeOrientation(to: .landscapeLeft, at: .seconds(1))
        try engine.posted(.message("b", immediate: true), at: .seconds(1.2))

        let overlay = engine.overlay(at: .seconds(1.2))
        #expect(overlay.phase == .rotatingOut)
        #expect(overlay.alpha == 0.5)
        #expect(overlay.message?.id == 2)
        #expect(overlay.message?.displayStartedAt == .seconds(1.2))
        #expect(engine.message(id: 1)?.state == .preempted)
        #expect(engine.overlay(at: .seconds(1.4)).phase == .rotatingIn)
        #expect(engine.overlay(at: .seconds(1.8)).phase == .visible)
        #expect(engine.overlay(at: .seconds(3.7)).phase == .hiding)
    }

    /// rotatingIn: the immediate message replaces the shown one at once and the fade-in goes on.
    @Test func whileRotatingIn() throws {
        var engine = makeEngine()
        try engine.posted(.message("Sending…", kind: .sending), at: .seconds(0))
        engine.changeOrientation(to: .landscapeLeft, at: .seconds(1))
        try engine.posted(.message("b", immediate: true), at: .seconds(1.6))

        let overlay = engine.overlay(at: .seconds(1.6))
        #expect(overlay.phase == .rotatingIn)
        #expect(overlay.alpha == 0.5)
        #expect(overlay.message?.id == 2)
        #expect(overlay.message?.displayStartedAt == .seconds(1.6))
        #expect(overlay.queued == 1)
        #expect(engine.queue.first?.id == 1)
        #expect(engine.overlay(at: .seconds(4.1)).message?.id == 1)
    }

    /// During a rotation, an immediate message replaces one whose time already ended and stays when
    /// `rotatingIn` ends, instead of the overlay hiding.
    @Test func replacesEndedMessageDuringRotation() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        engine.changeOrientation(to: .portraitUpsideDown, at: .seconds(2.5))
        try engine.posted(.message("b", immediate: true), at: .seconds(3))
        #expect(engine.message(id: 1)?.state == .done)
        #expect(engine.message(id: 1)?.endedAt == .seconds(2.75))
        let overlay = engine.overlay(at: .seconds(3.3))
        #expect(overlay.phase == .visible)
        #expect(overlay.message?.id == 2)
        #expect(engine.overlay(at: .seconds(5.5)).phase == .hiding)
    }

    /// An immediate message that would send a sticky message back to a full queue is refused (with
    /// a retry in 5 s: a sticky message's end is unknown); one that preempts a finite message needs
    /// no place and is accepted.
    @Test func immediateAgainstFullQueue() throws {
        var sticky = makeEngine { $0.maxQueue = 1 }
        try sticky.posted(.message("Sending…", kind: .sending), at: .seconds(0))
        try sticky.posted(.message("waiting"), at: .seconds(0))
        let version = sticky.version
        let refused = sticky.post(.message("now", immediate: true), at: .seconds(0)).value
        #expect(refused == .failure(.queueFull(limit: 1, retryAfter: .seconds(5))))
        #expect(sticky.version == version)
        #expect(sticky.current?.id == 1)

        var finite = makeEngine { $0.maxQueue = 1 }
        try finite.posted(.message("a"), at: .seconds(0))
        try finite.posted(.message("waiting"), at: .seconds(0))
        try finite.posted(.message("now", immediate: true), at: .seconds(0))
        #expect(finite.current?.id == 3)
        #expect(finite.queue.map(\.id) == [2])
    }
}

@Suite("Immediate against an ending message")
struct ImmediateEndingTests {
    /// A sending message whose progress reached 1 is ending, not sticky: an immediate message
    /// preempts it instead of sending it back to the queue.
    @Test func endingSendingMessageIsPreempted() throws {
        var engine = makeEngine()
        try engine.posted(.message("Uploading", kind: .sending, progress: 0.5), at: .seconds(0))
        engine.advance(to: .seconds(0.25))
        try engine.patched(1, MessageInput(progress: 1), at: .seconds(1))
        #expect(engine.current?.deadline == .seconds(2))
        try engine.posted(.message("now", immediate: true), at: .seconds(1.5))
        #expect(engine.message(id: 1)?.state == .preempted)
        #expect(engine.queue.isEmpty)
        #expect(engine.current?.id == 2)
    }
}
