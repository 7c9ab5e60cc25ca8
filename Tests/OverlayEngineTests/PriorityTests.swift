import Testing

@testable import OverlayEngine

/// `priority` (MODEL §11): the waiting queue shows higher priorities first, then by joining; it
/// never preempts the shown message, and a sticky message put back stays at the head.
@Suite("Message priorities")
struct PriorityTests {
    /// Behind a shown sticky message: max, then high (the explicit one and `failed`'s default,
    /// in the order they joined), then default, then low. The max one waits: no preemption.
    @Test func higherFirstThenByJoining() throws {
        var engine = makeEngine()
        try engine.posted(.message("upload", kind: .sending), at: .zero)
        try engine.posted(MessageInput.ranked("info", nil), at: .seconds(1))
        try engine.posted(MessageInput.ranked("high", .high), at: .seconds(2))
        try engine.posted(MessageInput.ranked("failed", nil, kind: .failed), at: .seconds(3))
        try engine.posted(MessageInput.ranked("max", .max), at: .seconds(4))
        try engine.posted(MessageInput.ranked("low", .low), at: .seconds(5))
        try engine.posted(MessageInput.ranked("min", .min), at: .seconds(6))
        #expect(engine.current?.text == "upload")
        #expect(engine.queue.map(\.text) == ["max", "high", "failed", "info", "low", "min"])
        #expect(engine.queue.map(\.priority.rawValue) == [5, 4, 4, 3, 2, 1])
        #expect(engine.liveMessages(after: 3, limit: 2)?.messages.map(\.text) == ["failed", "info"])
        try engine.deleted(1, at: .seconds(7))
        #expect(engine.current?.text == "max")
    }

    /// The kinds' priorities come from the configuration; the sender's wins over its kind's.
    @Test func configuredPriorities() throws {
        var engine = makeEngine { $0.priorities = [.failed: .default, .info: .low] }
        try engine.posted(.message("upload", kind: .sending), at: .zero)
        try engine.posted(.message("info"), at: .seconds(1))
        try engine.posted(.message("failed", kind: .failed), at: .seconds(2))
        try engine.posted(MessageInput.ranked("sent", .min, kind: .sent), at: .seconds(3))
        #expect(engine.queue.map(\.text) == ["failed", "info", "sent"])
    }

    /// A sticky message put back by an immediate one goes to the head whatever its priority,
    /// and stays ahead of later arrivals of any priority.
    @Test func putBackStaysAtTheHead() throws {
        var engine = makeEngine()
        try engine.posted(MessageInput.ranked("upload", .min, kind: .sending), at: .zero)
        try engine.posted(.message("urgent", kind: .sent, immediate: true), at: .seconds(1))
        try engine.posted(MessageInput.ranked("max", .max), at: .seconds(1.5))
        #expect(engine.queue.map(\.text) == ["upload", "max"])
        engine.advance(to: .seconds(3))
        #expect(engine.current?.text == "upload")
        #expect(engine.queue.map(\.text) == ["max"])
    }

    /// A new priority moves a waiting message among the others by when it joined; a new kind
    /// moves it when its sender gave none.
    @Test func patchMovesInTheQueue() throws {
        var engine = makeEngine()
        try engine.posted(.message("upload", kind: .sending), at: .zero)
        for text in ["a", "b", "c"] { try engine.posted(.message(text), at: .seconds(1)) }
        try engine.patched(4, MessageInput.ranked("c", .high), at: .seconds(2))
        #expect(engine.queue.map(\.text) == ["c", "a", "b"])
        try engine.patched(2, MessageInput.ranked("a", .high), at: .seconds(2))
        #expect(engine.queue.map(\.text) == ["a", "c", "b"])
        try engine.patched(2, MessageInput.ranked("a", .default), at: .seconds(2))
        #expect(engine.queue.map(\.text) == ["c", "a", "b"])
        // b becomes a failure: failed's priority, ahead of c too, which joined after it.
        try engine.patched(3, MessageInput(kind: .failed), at: .seconds(3))
        #expect(engine.queue.map(\.text) == ["b", "c", "a"])
        // With a priority of its own, a new kind leaves it where it is.
        try engine.patched(4, MessageInput(kind: .info), at: .seconds(3))
        #expect(engine.queue.map(\.text) == ["b", "c", "a"])
    }

    /// The names, ntfy's: `urgent` is `max`; anything else is no priority.
    @Test func names() {
        #expect(Priority.allCases.map(\.name) == ["min", "low", "default", "high", "max"])
        #expect(Priority(name: "urgent") == .max)
        #expect(Priority(name: "high") == .high)
        #expect(Priority(name: "High") == nil && Priority(name: "3") == nil)
    }
}
