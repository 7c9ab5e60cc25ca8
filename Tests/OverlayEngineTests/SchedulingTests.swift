import Testing

@testable import OverlayEngine

/// One message at a time, FIFO, display time from the end of the show (MODEL §3), and the kinds'
/// lifetimes (MODEL §2).
@Suite("Scheduling (MODEL §2, §3)")
struct SchedulingTests {
    /// A message posted while hidden starts showing at once; its display time starts when the
    /// 0.25 s show ends, so an info message (2.5 s) ends at 2.75.
    @Test func displayTimeStartsAtShowEnd() throws {
        var engine = makeEngine()
        let posted = try engine.posted(.message("a"), at: .seconds(0))
        #expect(posted.state == .showing)
        #expect(posted.shownAt == .seconds(0))
        #expect(posted.displayStartedAt == nil)
        #expect(engine.phase == .showing)

        engine.advance(to: .seconds(0.25))
        #expect(engine.message(id: 1)?.displayStartedAt == .seconds(0.25))
        #expect(engine.nextDeadline == .seconds(2.75))
        #expect(engine.overlay(at: .seconds(2.749_999_999)).phase == .visible)
        #expect(engine.overlay(at: .seconds(2.75)).phase == .hiding)
        #expect(engine.overlay(at: .seconds(2.75)).message?.endedAt == .seconds(2.75))
    }

    /// Default durations: sent 2.0, failed 3.0, info 2.5 (also the kind when none is given), each
    /// from the end of the show.
    @Test(arguments: [(MessageKind?.none, 2.5), (.info, 2.5), (.sent, 2.0), (.failed, 3.0)])
    func defaultDuration(kind: MessageKind?, seconds: Double) throws {
        var engine = makeEngine()
        let message = try engine.posted(.message("a", kind: kind), at: .seconds(0))
        #expect(message.kind == kind ?? .info)
        #expect(engine.overlay(at: .seconds(0.25 + seconds - 0.000_000_001)).message?.state == .showing)
        let ended = engine.overlay(at: .seconds(0.25 + seconds))
        #expect(ended.phase == .hiding)
        #expect(ended.message?.state == .done)
    }

    /// An explicit duration wins over the kind's.
    @Test func explicitDuration() throws {
        var engine = makeEngine()
        try engine.posted(.message("Sending", kind: .sending, duration: 1.5), at: .seconds(0))
        #expect(engine.overlay(at: .seconds(1.749_999_999)).phase == .visible)
        #expect(engine.overlay(at: .seconds(1.75)).message?.state == .done)
    }

    /// A sending message is sticky: after maxStickySeconds (300) of display it ends as expired.
    @Test func stickyExpires() throws {
        var engine = makeEngine()
        try engine.posted(.message("Sending…", kind: .sending), at: .seconds(0))
        #expect(engine.overlay(at: .seconds(300.249_999_999)).phase == .visible)
        let expired = engine.overlay(at: .seconds(300.25))
        #expect(expired.phase == .hiding)
        #expect(expired.message?.state == .expired)
        #expect(expired.message?.endedAt == .seconds(300.25))
    }

    /// maxStickySeconds is configurable.
    @Test func configuredStickyLimit() throws {
        var engine = makeEngine { $0.maxStickyDuration = .seconds(10) }
        try engine.posted(.message("Sending…", kind: .sending), at: .seconds(0))
        #expect(engine.overlay(at: .seconds(10.25)).message?.state == .expired)
    }

    /// A progress message without a progress starts at 0 and is sticky while below 1.
    @Test func progressIsStickyBelowOne() throws {
        var engine = makeEngine()
        let message = try engine.posted(.message("Downloading", kind: .progress), at: .seconds(0))
        #expect(message.progress == 0)
        #expect(engine.overlay(at: .seconds(100)).phase == .visible)
        try engine.patched(1, MessageInput(progress: 0.5), at: .seconds(100))
        #expect(engine.overlay(at: .seconds(300.249_999_999)).phase == .visible)
        #expect(engine.overlay(at: .seconds(300.25)).message?.state == .expired)
    }

    /// A progress message whose progress reaches 1 ends completeDuration (1.0) later, as done.
    @Test func progressCompletes() throws {
        var engine = makeEngine()
        try engine.posted(.message("Downloading", kind: .progress, progress: 0.25), at: .seconds(0))
        try engine.patched(1, MessageInput(progress: 1), at: .seconds(5))
        #expect(engine.overlay(at: .seconds(5.999_999_999)).phase == .visible)
        let done = engine.overlay(at: .seconds(6))
        #expect(done.phase == .hiding)
        #expect(done.message?.state == .done)
    }

    /// A progress message posted at 1 lasts completeDuration from the end of its show.
    @Test func progressPostedComplete() throws {
        var engine = makeEngine()
        try engine.posted(.message("Downloaded", kind: .progress, progress: 1), at: .seconds(0))
        #expect(engine.overlay(at: .seconds(1.249_999_999)).phase == .visible)
        #expect(engine.overlay(at: .seconds(1.25)).message?.state == .done)
    }

    /// completeDuration is configurable.
    @Test func configuredCompleteDuration() throws {
        var engine = makeEngine { $0.completeDuration = .seconds(4) }
        try engine.posted(.message("Downloading", kind: .progress), at: .seconds(0))
        try engine.patched(1, MessageInput(progress: 1), at: .seconds(1))
        #expect(engine.overlay(at: .seconds(4.999_999_999)).phase == .visible)
        #expect(engine.overlay(at: .seconds(5)).phase == .hiding)
    }

    /// Waiting messages of one priority show in the order they were posted; each replaces the
    /// previous one at once, with no animation, and its time starts at the replacement.
    @Test func fifoReplacement() throws {
        var engine = makeEngine { $0.priorities = [:] }
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.posted(.message("b", kind: .sent), at: .seconds(0.5))
        try engine.posted(.message("c", kind: .failed), at: .seconds(1))
        #expect(engine.overlay(at: .seconds(1)).queued == 2)
        #expect(engine.liveMessages.map(\.id) == [1, 2, 3])
        #expect(engine.queue.allSatisfy { $0.state == .queued })

        let second = engine.overlay(at: .seconds(2.75))
        #expect(second.phase == .visible)
        #expect(second.message?.id == 2)
        #expect(second.message?.displayStartedAt == .seconds(2.75))
        #expect(second.contentOffset == 0)
        #expect(second.alpha == 1)
        #expect(second.animation == nil)
        #expect(second.queued == 1)
        #expect(engine.overlay(at: .seconds(2.75)).message?.state == .showing)

        let third = engine.overlay(at: .seconds(4.75))
        #expect(third.phase == .visible)
        #expect(third.message?.id == 3)
        #expect(third.queued == 0)

        #expect(engine.overlay(at: .seconds(7.749_999_999)).phase == .visible)
        #expect(engine.overlay(at: .seconds(7.75)).phase == .hiding)
        #expect(engine.overlay(at: .seconds(8)).phase == .hidden)
    }

    /// A message posted during a show waits for the shown one; the queue is shown in the same
    /// overlay without hiding in between.
    @Test func postedDuringShow() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        let waiting = try engine.posted(.message("b"), at: .seconds(0.1))
        #expect(waiting.state == .queued)
        #expect(engine.overlay(at: .seconds(0.1)).message?.id == 1)
        #expect(engine.overlay(at: .seconds(0.1)).queued == 1)
        #expect(engine.overlay(at: .seconds(2.75)).message?.id == 2)
    }

    /// A message posted while the overlay hides is shown again right after the hide ends.
    @Test func postedWhileHiding() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        let waiting = try engine.posted(.message("b"), at: .seconds(2.8))
        #expect(waiting.state == .queued)
        #expect(engine.overlay(at: .seconds(2.8)).phase == .hiding)
        #expect(engine.overlay(at: .seconds(2.8)).message?.id == 1)

        let again = engine.overlay(at: .seconds(3))
        #expect(again.phase == .showing)
        #expect(again.message?.id == 2)
        #expect(again.message?.shownAt == .seconds(3))
        #expect(again.contentOffset == -20)
        #expect(engine.overlay(at: .seconds(3.125)).contentOffset == -10)
        #expect(engine.overlay(at: .seconds(3.25)).phase == .visible)
        #expect(engine.overlay(at: .seconds(5.75)).phase == .hiding)
    }

    /// Every event first reaches each deadline up to its time, at that deadline's own instant.
    @Test func deadlinesReachedAtTheirOwnInstants() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.posted(.message("b"), at: .seconds(10))
        #expect(engine.message(id: 1)?.endedAt == .seconds(2.75))
        #expect(engine.message(id: 1)?.state == .done)
        #expect(engine.message(id: 2)?.shownAt == .seconds(10))
        #expect(engine.phase == .showing)
        #expect(engine.now == .seconds(10))
    }

    /// Ids are assigned by the engine, from 1, increasing.
    @Test func idsIncrease() throws {
        var engine = makeEngine()
        let ids = try (0..<4).map { _ in try engine.posted(.message("m"), at: .seconds(0)).id }
        #expect(ids == [1, 2, 3, 4])
        try engine.deleted(2, at: .seconds(0))
        let next = try engine.posted(.message("n"), at: .seconds(0))
        #expect(next.id == 5)
    }

    /// An ended message stays readable by id, with its final state.
    @Test func endedMessageReadable() throws {
        var engine = makeEngine()
        try engine.posted(.message("a", kind: .sent), at: .seconds(0))
        engine.advance(to: .seconds(10))
        let ended = try #require(engine.message(id: 1))
        #expect(ended.state == .done)
        #expect(ended.endedAt == .seconds(2.25))
        #expect(engine.liveMessages.isEmpty)
        #expect(engine.message(id: 2) == nil)
    }
}

/// The bounds of MODEL §2 and §3: maxQueue (1000) waiting messages, historySize (100) ended ones.
@Suite("Queue and history bounds")
struct BoundTests {
    /// With the shown message and 1000 waiting, a new message is refused as queueFull and changes nothing.
    @Test func queueFull() throws {
        var engine = makeEngine()
        try engine.posted(.message("shown"), at: .seconds(0))
        for _ in 0..<1000 { try engine.posted(.message("waiting"), at: .seconds(1)) }
        #expect(engine.queue.count == 1000)
        let version = engine.version

        let refused = engine.post(.message("one too many"), at: .seconds(1)).value
        #expect(refused == .failure(.queueFull(limit: 1000, retryAfter: .seconds(1.75))))
        #expect(engine.version == version)
        #expect(engine.queue.count == 1000)
        #expect(engine.nextID == 1002)
    }

    /// A smaller maxQueue counts only the waiting messages, not the shown one.
    @Test func configuredQueueBound() throws {
        var engine = makeEngine { $0.maxQueue = 2 }
        try engine.posted(.message("shown"), at: .seconds(0))
        try engine.posted(.message("first"), at: .seconds(0))
        try engine.posted(.message("second"), at: .seconds(0))
        let refused = engine.post(.message("third"), at: .seconds(0)).value
        #expect(refused == .failure(.queueFull(limit: 2, retryAfter: .seconds(2.75))))
        #expect(engine.overlay(at: .seconds(0)).queued == 2)
    }

    /// Retry-After is the time until the shown message's time ends, but at least a second.
    @Test func retryAfterAtLeastOneSecond() throws {
        var engine = makeEngine { $0.maxQueue = 1 }
        try engine.posted(.message("shown"), at: .seconds(0))
        try engine.posted(.message("waiting"), at: .seconds(0))
        let refused = engine.post(.message("x"), at: .seconds(2.5)).value
        #expect(refused == .failure(.queueFull(limit: 1, retryAfter: .seconds(1))))
    }

    /// A message posted while hidden takes no place in the queue, so even maxQueue 0 shows it.
    @Test func hiddenPostTakesNoSlot() throws {
        var engine = makeEngine { $0.maxQueue = 0 }
        try engine.posted(.message("a"), at: .seconds(0))
        #expect(engine.phase == .showing)
        let refused = engine.post(.message("b"), at: .seconds(0)).value
        #expect(refused == .failure(.queueFull(limit: 0, retryAfter: .seconds(2.75))))
    }

    /// A message posted while hiding waits, so it counts against the bound.
    @Test func hidingPostTakesSlot() throws {
        var engine = makeEngine { $0.maxQueue = 1 }
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.posted(.message("b"), at: .seconds(2.8))
        let refused = engine.post(.message("c", immediate: true), at: .seconds(2.8)).value
        #expect(refused == .failure(.queueFull(limit: 1, retryAfter: .seconds(1))))
        #expect(engine.queue.map(\.id) == [2])
    }

    /// The last 100 ended messages stay readable; older ones are gone (404, not 409).
    @Test func historyBound() throws {
        var engine = makeEngine()
        try engine.posted(.message("shown"), at: .seconds(0))
        for _ in 0..<101 { try engine.posted(.message("waiting"), at: .seconds(0)) }
        for id in Int64(2)...102 { try engine.deleted(id, at: .seconds(0)) }
        #expect(engine.history.count == 100)
        #expect(engine.history.first?.id == 3)
        #expect(engine.message(id: 2) == nil)
        #expect(engine.message(id: 3)?.state == .cancelled)
        let forgotten = engine.delete(id: 2, at: .seconds(0)).value
        let remembered = engine.delete(id: 3, at: .seconds(0)).value
        #expect(forgotten == .failure(.messageNotFound(id: 2)))
        #expect(remembered == .failure(.messageEnded(id: 3, state: .cancelled)))
    }

    /// historySize is configurable.
    @Test func configuredHistoryBound() throws {
        var engine = makeEngine { $0.historySize = 2 }
        for _ in 0..<4 { try engine.posted(.message("m", kind: .sent), at: .seconds(0)) }
        engine.advance(to: .seconds(100))
        #expect(engine.history.map(\.id) == [3, 4])
        #expect(engine.message(id: 1) == nil)
        #expect(engine.message(id: 4)?.state == .done)
    }
}
