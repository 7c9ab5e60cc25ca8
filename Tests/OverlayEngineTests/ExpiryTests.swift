import Testing

@testable import OverlayEngine

/// `expires` (MODEL §11): counted from joining the queue, it ends a message still waiting as
/// `expired`; once shown it no longer applies.
@Suite("Expiring messages")
struct ExpiryTests {
    /// Waiting behind a sticky message from 1, it expires at 6 exactly: ended, in the history,
    /// out of the queue, one version.
    @Test func aWaitingMessageExpires() throws {
        var engine = makeEngine()
        try engine.posted(.message("upload", kind: .sending), at: .zero)
        let queued = try engine.posted(MessageInput.expiring("b", after: 5), at: .seconds(1))
        #expect(queued.state == .queued && queued.expiresAt == .seconds(6))
        #expect(engine.nextDeadline == .seconds(6))
        engine.advance(to: .seconds(5.999_999_999))
        #expect(engine.queue.count == 1)
        let version = engine.version
        let changes = engine.advance(to: .seconds(6))
        #expect(changes.messages.contains(2))
        #expect(engine.version == version + 1)
        let expired = try #require(engine.message(id: 2))
        #expect(expired.state == .expired && expired.endedAt == .seconds(6))
        #expect(engine.queue.isEmpty && engine.history.last?.id == 2)
        #expect(engine.current?.text == "upload")
    }

    /// A scheduled message's expiry counts from when it joins the queue, not from its post.
    @Test func countedFromJoining() throws {
        var engine = makeEngine()
        try engine.posted(.message("upload", kind: .sending), at: .zero)
        var input = MessageInput.expiring("later", after: 5)
        input.delay = .seconds(10)
        let scheduled = try engine.posted(input, at: .zero)
        #expect(scheduled.expiresAt == nil)
        engine.advance(to: .seconds(10))
        #expect(engine.queue.first?.expiresAt == .seconds(15))
        engine.advance(to: .seconds(14.999_999_999))
        #expect(engine.queue.count == 1)
        engine.advance(to: .seconds(15))
        #expect(engine.message(id: 2)?.state == .expired)
    }

    /// A message shown at once, or shown before it would expire, is never `expired` by it.
    @Test func noEffectOnceShown() throws {
        var engine = makeEngine()
        try engine.posted(MessageInput.expiring("a", after: 1), at: .zero)
        #expect(engine.current?.expiresAt == nil)
        engine.advance(to: .seconds(2.75))
        #expect(engine.message(id: 1)?.state == .done)

        // Shown, then put back by an immediate one: it waits again, past its expiry, and shows.
        try engine.posted(MessageInput.expiring("upload", after: 2, kind: .sending), at: .seconds(10))
        try engine.posted(.message("urgent", immediate: true), at: .seconds(11))
        #expect(engine.queue.first?.text == "upload" && engine.queue.first?.hasBeenShown == true)
        engine.advance(to: .seconds(13.5))
        #expect(engine.current?.text == "upload" && engine.current?.state == .showing)
    }

    /// A waiting message expiring at the instant the shown one ends is not shown: the expiry
    /// comes first, and the overlay hides.
    @Test func expiryWinsATie() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .zero)
        try engine.posted(MessageInput.expiring("b", after: 1.75), at: .seconds(1))
        engine.advance(to: .seconds(2.75))
        #expect(engine.message(id: 2)?.state == .expired)
        #expect(engine.message(id: 1)?.state == .done)
        #expect(engine.phase == .hiding)
    }

    /// PATCH sets or changes the expiry of a waiting message, counted from when it joined; one
    /// already past ends it at once.
    @Test func patchCountsFromJoining() throws {
        var engine = makeEngine()
        try engine.posted(.message("upload", kind: .sending), at: .zero)
        try engine.posted(.message("b"), at: .seconds(1))
        #expect(try engine.patched(2, MessageInput(expires: .seconds(3)), at: .seconds(2)).expiresAt == .seconds(4))
        #expect(engine.nextDeadline == .seconds(4))
        #expect(try engine.patched(2, MessageInput(expires: .seconds(10)), at: .seconds(3)).expiresAt == .seconds(11))
        #expect(engine.nextDeadline == .seconds(11))
        let ended = try engine.patched(2, MessageInput(expires: .seconds(0.5)), at: .seconds(4))
        #expect(ended.state == .expired && ended.endedAt == .seconds(4))
        // The shown message takes a new expires without effect.
        let shown = try engine.patched(1, MessageInput(expires: .seconds(1)), at: .seconds(5))
        #expect(shown.expires == .seconds(1) && shown.expiresAt == nil && shown.state == .showing)
    }

    /// `expires` is more than 0 and at most 7 days.
    @Test func expiresRules() {
        var engine = makeEngine()
        for seconds in [0, -3, 604_800.5] {
            #expect(engine.post(MessageInput.expiring("x", after: seconds), at: .zero).value.refusedField == "expires")
        }
        #expect(engine.nextID == 1)
    }

    /// Many waiting messages expire each at its own time, in order, whatever order they joined.
    @Test func manyExpireInOrder() throws {
        var engine = makeEngine()
        try engine.posted(.message("upload", kind: .sending), at: .zero)
        let lengths = [9.0, 3, 7, 1, 5]
        for (offset, seconds) in lengths.enumerated() {
            try engine.posted(MessageInput.expiring("m\(offset)", after: seconds), at: .seconds(1))
        }
        var ended: [Int64] = []
        for time in stride(from: 1.0, through: 11, by: 1) {
            engine.advance(to: .seconds(time))
            ended += engine.history.map(\.id).filter { !ended.contains($0) }
        }
        #expect(ended == [5, 3, 6, 4, 2])
        #expect(engine.history.map(\.endedAt) == [2, 4, 6, 8, 10].map { Instant.seconds($0) })
    }
}
