import Testing

@testable import OverlayEngine

/// `delay` and `at` (MODEL §11): a scheduled message waits outside the queue until its time, then
/// joins it as if posted then. Every time here is on the manual clock unless an epoch is set.
@Suite("Scheduled messages")
struct ScheduleTests {
    /// Scheduled at 1 with a delay of 10: nothing shows, the deadline is its time, and at 11
    /// exactly it shows as a message posted at 11 would.
    @Test func delayedMessageShowsAtItsTime() throws {
        var engine = makeEngine()
        let versionBefore = engine.version
        let posted = try engine.posted(MessageInput.later("later", delay: 10), at: .seconds(1))
        #expect(posted.state == .scheduled)
        #expect(posted.scheduledFor == .seconds(11))
        #expect(posted.joinedAt == nil)
        #expect(engine.version == versionBefore + 1)
        #expect(engine.nextDeadline == .seconds(11))
        let waiting = engine.overlay(at: .seconds(10.999_999_999))
        #expect(waiting.phase == .hidden && waiting.scheduled == 1 && waiting.queued == 0)
        #expect(engine.liveMessages.isEmpty)

        engine.advance(to: .seconds(11))
        let shown = try #require(engine.message(id: 1))
        #expect(shown.state == .showing && shown.shownAt == .seconds(11) && shown.joinedAt == .seconds(11))
        #expect(shown.postedAt == .seconds(1))
        #expect(engine.phase == .showing)
        #expect(engine.overlay(at: .seconds(11)).scheduled == 0)
        #expect(engine.overlay(at: .seconds(11.125)).contentOffset == -10)
        // Its display time starts after the show, as any message's: info stays 2.5 s.
        #expect(engine.overlay(at: .seconds(13.749_999_999)).phase == .visible)
        #expect(engine.overlay(at: .seconds(13.75)).phase == .hiding)
    }

    /// With the manual clock an `at` is a number on it: one ahead schedules, one not later than
    /// now shows at once, one more than 7 days ahead is refused, and a calendar time is refused.
    @Test func atOnTheManualClock() throws {
        var engine = makeEngine()
        #expect(try engine.posted(MessageInput.later("a", at: .number(5)), at: .seconds(2)).scheduledFor == .seconds(5))
        #expect(try engine.posted(MessageInput.later("b", at: .number(2)), at: .seconds(2)).state == .showing)
        #expect(try engine.posted(MessageInput.later("c", at: .number(1)), at: .seconds(2)).state == .queued)
        let week = 7 * 86400.0
        #expect(try engine.posted(MessageInput.later("d", at: .number(2 + week)), at: .seconds(2)).state == .scheduled)
        let nextID = engine.nextID
        let version = engine.version
        #expect(
            engine.post(MessageInput.later("e", at: .number(2.000_000_001 + week)), at: .seconds(2)).value.refusedField
                == "at")
        #expect(
            engine.post(MessageInput.later("f", at: .calendar(unixNanoseconds: 0)), at: .seconds(2)).value.refusedField
                == "at")
        #expect(engine.nextID == nextID && engine.version == version)
    }

    /// With the real clock an `at` is a Unix time: the epoch (the Unix time at the clock's zero)
    /// puts it on the engine's clock, as seconds or as a calendar time alike.
    @Test func atOnTheRealClock() throws {
        let epoch: Int64 = 1_800_000_000_000_000_000
        var engine = makeEngine { $0.wallClockEpoch = epoch }
        let seconds = try engine.posted(MessageInput.later("a", at: .number(1_800_000_030)), at: .seconds(1))
        #expect(seconds.scheduledFor == .seconds(30))
        let calendar = try engine.posted(
            MessageInput.later("b", at: .calendar(unixNanoseconds: epoch + 45_500_000_000)), at: .seconds(1))
        #expect(calendar.scheduledFor == .seconds(45.5))
        // A Unix time in the past shows now.
        #expect(
            try engine.posted(MessageInput.later("c", at: .number(1_700_000_000)), at: .seconds(1)).state == .showing)
    }

    /// `delay` is more than 0 and at most 7 days, and never given with `at`.
    @Test func delayRules() {
        var engine = makeEngine()
        for seconds in [0, -1, 7 * 86400 + 0.001] {
            #expect(engine.post(MessageInput.later("x", delay: seconds), at: .zero).value.refusedField == "delay")
        }
        #expect(engine.post(MessageInput.later("x", delay: 5, at: .number(9)), at: .zero).value.refusedField == "at")
        #expect(engine.nextID == 1 && engine.version == 0 && engine.scheduledMessages.isEmpty)
    }

    /// Scheduled messages join in the order of their times, then of their ids, whatever order
    /// they were posted in.
    @Test func joinInTheOrderOfTheirTimes() throws {
        var engine = makeEngine()
        try engine.posted(.message("upload", kind: .sending), at: .zero)
        try engine.posted(MessageInput.later("a", delay: 5), at: .zero)
        try engine.posted(MessageInput.later("b", delay: 3), at: .zero)
        try engine.posted(MessageInput.later("c", delay: 5), at: .zero)
        #expect(engine.scheduledMessages.map(\.text) == ["b", "a", "c"])
        #expect(engine.nextDeadline == .seconds(0.25))
        engine.advance(to: .seconds(3))
        #expect(engine.queue.map(\.text) == ["b"])
        #expect(engine.nextDeadline == .seconds(5))
        engine.advance(to: .seconds(5))
        #expect(engine.queue.map(\.text) == ["b", "a", "c"])
        #expect(engine.queue.map(\.joinedAt) == [.seconds(3), .seconds(5), .seconds(5)])
        #expect(engine.scheduledMessages.isEmpty && engine.nextDeadline == .seconds(300.25))
    }

    /// An immediate message scheduled for later takes the shown one's place at its time, as an
    /// immediate one posted then would: the sticky one goes back to the head of the queue.
    @Test func immediateAtItsTime() throws {
        var engine = makeEngine()
        try engine.posted(.message("upload", kind: .sending), at: .zero)
        var urgent = MessageInput.later("urgent", delay: 1)
        urgent.immediate = true
        try engine.posted(urgent, at: .seconds(1))
        #expect(engine.current?.text == "upload")
        engine.advance(to: .seconds(2))
        #expect(engine.current?.text == "urgent")
        #expect(engine.current?.displayStartedAt == .seconds(2))
        #expect(engine.queue.map(\.text) == ["upload"])
    }

    /// At most `maxScheduled` wait: one more is refused with the time until the first is due
    /// (at least a second), and changes nothing.
    @Test func scheduleFull() throws {
        var engine = makeEngine { $0.maxScheduled = 2 }
        try engine.posted(MessageInput.later("a", delay: 30), at: .zero)
        try engine.posted(MessageInput.later("b", delay: 10), at: .zero)
        let version = engine.version
        let refused = engine.post(MessageInput.later("c", delay: 5), at: .seconds(2)).value
        #expect(refused == .failure(.scheduleFull(limit: 2, retryAfter: .seconds(8))))
        #expect(engine.version == version && engine.nextID == 3 && engine.scheduledMessages.count == 2)
        #expect(
            engine.post(MessageInput.later("c", delay: 5), at: .seconds(9.5)).value
                == .failure(.scheduleFull(limit: 2, retryAfter: .seconds(1))))
        // A message that shows now takes no scheduled place.
        #expect(try engine.posted(.message("now"), at: .seconds(9.5)).state == .showing)
    }

    /// A keyed POST updates the scheduled message with its key, which stays scheduled; with a
    /// delay it gets a new time from now.
    @Test func keyedPostUpdatesAScheduledMessage() throws {
        var engine = makeEngine()
        try engine.posted(MessageInput.later("Reminder", delay: 60, key: "r"), at: .zero)
        let updated = engine.post(.message("Reminder!", key: "r"), at: .seconds(1)).value
        #expect(try updated.get().isUpdate)
        #expect(try updated.get().message.state == .scheduled)
        #expect(engine.scheduledMessages.first?.text == "Reminder!")
        #expect(engine.scheduledMessages.first?.scheduledFor == .seconds(60))
        let moved = try engine.post(MessageInput.later("Reminder!", delay: 5, key: "r"), at: .seconds(2)).value.get()
        #expect(moved.isUpdate && moved.message.scheduledFor == .seconds(7))
        #expect(engine.nextDeadline == .seconds(7))
        #expect(engine.nextID == 2)
    }

    /// PATCH gives a scheduled message a new time (an `at` that has come makes it join now);
    /// a new time for a message no longer scheduled is refused, naming the field.
    @Test func patchANewTime() throws {
        var engine = makeEngine()
        try engine.posted(MessageInput.later("a", delay: 60), at: .zero)
        try engine.posted(MessageInput.later("b", delay: 90), at: .zero)
        #expect(try engine.patched(2, MessageInput.later("b", delay: 10), at: .seconds(1)).scheduledFor == .seconds(11))
        #expect(engine.scheduledMessages.map(\.id) == [2, 1])
        let joined = try engine.patched(1, MessageInput(at: .number(1)), at: .seconds(2))
        #expect(joined.state == .showing && engine.current?.id == 1)
        #expect(
            engine.update(id: 1, with: MessageInput(delay: .seconds(5)), at: .seconds(3)).value
                == .failure(.notScheduled(id: 1, state: .showing, field: "delay")))
        #expect(
            engine.update(id: 1, with: MessageInput(at: .number(50)), at: .seconds(3)).value
                == .failure(.notScheduled(id: 1, state: .showing, field: "at")))
        // Other fields of a scheduled message change in place; the same fields change nothing.
        let version = engine.version
        #expect(try engine.patched(2, MessageInput(text: "b"), at: .seconds(3)).text == "b")
        #expect(engine.version == version)
        #expect(try engine.patched(2, MessageInput(text: "b2", priority: .high), at: .seconds(3)).priority == .high)
        #expect(engine.version == version + 1)
    }

    /// DELETE cancels a scheduled message: it never joins, and its time is no deadline.
    @Test func deleteAScheduledMessage() throws {
        var engine = makeEngine()
        try engine.posted(MessageInput.later("a", delay: 60, key: "k"), at: .zero)
        let cancelled = try engine.deleted(1, at: .seconds(1))
        #expect(cancelled.state == .cancelled && cancelled.endedAt == .seconds(1))
        #expect(engine.scheduledMessages.isEmpty && engine.nextDeadline == nil)
        #expect(engine.message(id: 1)?.state == .cancelled)
        // Its key is free again: a keyed POST makes a new message.
        #expect(try engine.posted(.message("again", key: "k"), at: .seconds(2)).id == 2)
    }

    /// The scheduled messages are listed a page at a time in the order they are due; a cursor
    /// that is no longer scheduled is nil.
    @Test func pagesOfScheduledMessages() throws {
        var engine = makeEngine()
        for (offset, delay) in [40.0, 10, 30, 20].enumerated() {
            try engine.posted(MessageInput.later("m\(offset)", delay: delay), at: .zero)
        }
        let first = try #require(engine.scheduledMessages(after: nil, limit: 3))
        #expect(first.messages.map(\.id) == [2, 4, 3] && first.next == 3)
        let second = try #require(engine.scheduledMessages(after: 3, limit: 3))
        #expect(second.messages.map(\.id) == [1] && second.next == nil)
        engine.advance(to: .seconds(10))
        #expect(engine.scheduledMessages(after: 2, limit: 3) == nil)
    }
}
