import Testing

@testable import OverlayEngine

/// `post(batch:)`: a webhook delivery's messages as one event, all of them or none.
@Suite("Batch posts")
struct BatchTests {
    static func keyed(_ key: String, _ kind: MessageKind, _ text: String = "t") -> BatchPost {
        BatchPost(MessageInput(kind: kind, text: text, key: key))
    }

    /// Every post applies in order; a key repeated updates the message its first post made.
    @Test func appliesInOrder() throws {
        var engine = makeEngine()
        let applied = engine.post(
            batch: [Self.keyed("a", .sending), Self.keyed("b", .info), Self.keyed("a", .sent)], at: .zero)
        let outcomes = try applied.value.get()
        #expect(outcomes.map { $0?.message.id } == [1, 2, 1])
        #expect(outcomes.map { $0.map { if case .created = $0 { true } else { false } } } == [true, true, false])
        #expect(engine.message(id: 1)?.kind == .sent)
        #expect(engine.queue.count == 1)
        #expect(Set(applied.changes.messages) == [1, 2])
    }

    /// A refused post (the queue full at the third) leaves the engine exactly as it was, with no
    /// changes to store, even for deadlines the batch would have reached.
    @Test func noneWhenOneIsRefused() throws {
        var engine = makeEngine { $0.maxQueue = 1 }
        try engine.posted(.message("shown", duration: 1), at: .zero)
        let before = engine
        let applied = engine.post(
            batch: [Self.keyed("a", .info), BatchPost(MessageInput(text: "")), Self.keyed("c", .info)], at: .seconds(5))
        guard case .failure(let failure) = applied.value else {
            Issue.record("the batch was applied")
            return
        }
        #expect(failure.index == 1)
        #expect(engine == before)
        #expect(applied.changes.isEmpty)
        let full = engine.post(batch: [Self.keyed("a", .info), Self.keyed("b", .info)], at: .seconds(0.5))
        guard case .failure(let queueFull) = full.value, case .queueFull = queueFull.error else {
            Issue.record("expected a full queue")
            return
        }
        #expect(queueFull.index == 1 && engine == before)
    }

    /// A post that yields to its key's live kind is skipped when that kind differs, applied when
    /// it is the same or nothing is live.
    @Test func yieldsToTheLiveOutcome() throws {
        var engine = makeEngine()
        let late = BatchPost(MessageInput(kind: .sending, text: "CI #1", key: "run"), yieldsToLiveKind: true)
        #expect(try engine.post(batch: [late], at: .zero).value.get().map { $0?.message.id } == [1])
        #expect(try engine.post(batch: [late], at: .zero).value.get().map { $0?.message.id } == [1])
        _ = engine.post(batch: [Self.keyed("run", .failed)], at: .zero)
        let skipped = engine.post(batch: [late], at: .zero)
        #expect(try skipped.value.get().map { $0 == nil } == [true])
        #expect(engine.message(id: 1)?.kind == .failed)
        // Once that message has ended, the key is free: a new run's message is made. The batch
        // reaches its time first, so the ended message is seen as ended.
        #expect(try engine.post(batch: [late], at: .seconds(100)).value.get().map { $0?.message.id } == [2])
    }
}
