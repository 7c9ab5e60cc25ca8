import Testing

@testable import OverlayEngine

/// `minimumVisible` (docs/MODEL.md §14) on the default ipad: a message posted at 0 is shown
/// 0 → 0.25 and fully shown from 0.25; with `minimumVisible` 0.4 an immediate message replaces it
/// no sooner than 0.65.
@Suite("The shortest showing (MODEL §14)")
struct MinimumVisibleTests {
    static func engine(_ configure: (inout EngineConfiguration) -> Void = { _ in }) -> OverlayEngine {
        makeEngine {
            $0.minimumVisible = .seconds(0.4)
            configure(&$0)
        }
    }

    /// The immediate message waits at the head of the queue and replaces the shown one at 0.65,
    /// which ends `preempted` then; the end of the wait is a version of its own.
    @Test func anImmediateMessageWaits() throws {
        var engine = Self.engine()
        try engine.posted(.message("a", duration: 5), at: .seconds(0))
        try engine.posted(.message("later"), at: .seconds(0.2))
        let waiting = try engine.posted(.message("b", immediate: true), at: .seconds(0.3))
        #expect(waiting.state == .queued)
        #expect(engine.queue.map(\.text) == ["b", "later"])
        #expect(engine.nextDeadline == .seconds(0.65))
        #expect(engine.at(0.649_999_999).message?.text == "a")

        let version = engine.version
        engine.advance(to: .seconds(0.65))
        #expect(engine.version == version + 1)
        #expect(engine.current?.text == "b")
        #expect(engine.current?.displayStartedAt == .seconds(0.65))
        #expect(engine.message(id: 1)?.state == .preempted)
        #expect(engine.message(id: 1)?.endedAt == .seconds(0.65))
        #expect(engine.queue.map(\.text) == ["later"])
    }

    /// Once the shown message has been fully shown for `minimumVisible`, nothing waits.
    @Test func afterTheMinimumItReplacesAtOnce() throws {
        var engine = Self.engine()
        try engine.posted(.message("a", duration: 5), at: .seconds(0))
        try engine.posted(.message("b", immediate: true), at: .seconds(0.65))
        #expect(engine.current?.text == "b")
        #expect(engine.message(id: 1)?.state == .preempted)
    }

    /// During the show animation the message is not yet fully shown: the wait counts from its end.
    @Test func duringTheShowItWaitsForTheShowsEnd() throws {
        var engine = Self.engine()
        try engine.posted(.message("a", duration: 5), at: .seconds(0))
        try engine.posted(.message("b", immediate: true), at: .seconds(0.1))
        #expect(engine.at(0.25).message?.text == "a")
        #expect(engine.at(0.649_999_999).message?.text == "a")
        #expect(engine.at(0.65).message?.text == "b")
    }

    /// With the rise, a message is fully shown when its rise ends: an immediate one posted during
    /// the rise waits until 0.6 s after, plus the minimum, and then rises in itself.
    @Test func withTheRiseTheWaitCountsFromItsEnd() throws {
        var engine = Self.engine { $0.messageChange = .rise }
        try engine.posted(.message("a", duration: 1), at: .seconds(0))
        try engine.posted(.message("b", duration: 5), at: .seconds(0.1))
        try engine.posted(.message("c", immediate: true), at: .seconds(1.5))
        // "b" rises in 1.25 → 1.85 and is fully shown from 1.85.
        #expect(engine.at(2.249_999_999).message?.text == "b")
        let replaced = engine.at(2.25)
        #expect(replaced.message?.text == "c")
        #expect(replaced.outgoing?.text == "b")
        #expect(replaced.animation?.start == .seconds(2.25))
    }

    /// A shown message whose own time ends first is replaced by the waiting one as by any next.
    @Test func theShownMessageEndingFirst() throws {
        var engine = Self.engine()
        try engine.posted(.message("a", duration: 0.2), at: .seconds(0))
        try engine.posted(.message("b", immediate: true), at: .seconds(0.3))
        engine.advance(to: .seconds(0.45))
        #expect(engine.message(id: 1)?.state == .done)
        #expect(engine.current?.text == "b")
    }

    /// DELETE and dismiss act at once: the waiting message shows as the next one.
    @Test func deleteAndDismissAtOnce() throws {
        var deleted = Self.engine()
        try deleted.posted(.message("a", duration: 5), at: .seconds(0))
        try deleted.posted(.message("b", immediate: true), at: .seconds(0.3))
        try deleted.deleted(1, at: .seconds(0.35))
        #expect(deleted.current?.text == "b")

        var dismissed = Self.engine()
        try dismissed.posted(.message("a", duration: 5), at: .seconds(0))
        try dismissed.posted(.message("b", immediate: true), at: .seconds(0.3))
        _ = try dismissed.dismiss(at: .seconds(0.35)).value.get()
        #expect(dismissed.message(id: 1)?.state == .dismissed)
        #expect(dismissed.current?.text == "b")
    }

    /// A waiting immediate message takes a place in the queue: with `maxQueue` 0 it is refused.
    @Test func itCountsInTheQueue() throws {
        var engine = Self.engine { $0.maxQueue = 0 }
        try engine.posted(.message("a", duration: 5), at: .seconds(0))
        engine.advance(to: .seconds(0.3))
        let version = engine.version
        guard case .failure(.queueFull) = engine.post(.message("b", immediate: true), at: .seconds(0.3)).value else {
            Issue.record("a waiting immediate message was accepted beyond maxQueue")
            return
        }
        #expect(engine.version == version)
    }

    /// A sticky message put back at the head by an immediate one has been shown: it does not wait
    /// to replace anything, it shows when the next one ends.
    @Test func aStickyMessagePutBackDoesNotReplace() throws {
        var engine = Self.engine()
        try engine.posted(.message("sticky", kind: .sending), at: .seconds(0))
        try engine.posted(.message("b", duration: 3, immediate: true), at: .seconds(1))
        #expect(engine.current?.text == "b")
        #expect(engine.queue.first?.text == "sticky")
        #expect(engine.nextDeadline == .seconds(4))
        #expect(engine.at(3.9).message?.text == "b")
        #expect(engine.at(4).message?.text == "sticky")
    }

    /// With the default 0 nothing waits.
    @Test func zeroWaitsForNothing() throws {
        var engine = makeEngine()
        try engine.posted(.message("a", duration: 5), at: .seconds(0))
        try engine.posted(.message("b", immediate: true), at: .seconds(0.1))
        #expect(engine.current?.text == "b")
        #expect(engine.queue.isEmpty)
    }
}
