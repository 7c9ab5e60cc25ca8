import Testing

@testable import OverlayEngine

/// A POST whose `key` matches a queued or shown message updates it in place, as a PATCH would
/// (MODEL §2): `.updated` (200) instead of `.created` (202).
@Suite("Keyed posts (MODEL §2)")
struct KeyTests {
    /// A sender reports "upload-42" as sending, then progress, then sent, without keeping ids.
    @Test func updatesTheShownMessage() throws {
        var engine = makeEngine()
        let first = try engine.posted(.message("Uploading", kind: .sending, key: "upload-42"), at: .seconds(0))

        let progress = engine.post(MessageInput(kind: .progress, progress: 0.5, key: "upload-42"), at: .seconds(1))
            .value
        guard case .success(.updated(let updated)) = progress else {
            Issue.record("expected an update, got \(progress)")
            return
        }
        #expect(updated.id == first.id)
        #expect(updated.kind == .progress)
        #expect(updated.progress == 0.5)
        #expect(updated.text == "Uploading")
        #expect(updated.key == "upload-42")
        #expect(engine.version == 3)
        #expect(engine.nextID == 2)
        #expect(engine.liveMessages.count == 1)

        let sent = engine.post(.message("Uploaded", kind: .sent, key: "upload-42"), at: .seconds(2)).value
        #expect(sent.map(\.message.text) == .success("Uploaded"))
        #expect(sent.map(\.isUpdate) == .success(true))
        // sticky → finite: the sent message's 2.0 s run from this update.
        #expect(engine.overlay(at: .seconds(3.999_999_999)).phase == .visible)
        #expect(engine.overlay(at: .seconds(4)).phase == .hiding)
        #expect(engine.overlay(at: .seconds(4)).message?.state == .done)
    }

    /// Fields the keyed POST leaves out stay as they were.
    @Test func fieldsLeftAlone() throws {
        var engine = makeEngine()
        try engine.posted(
            .message("Downloading", kind: .progress, progress: 0.25, duration: 60, key: "k"), at: .seconds(0))
        let updated = try engine.post(MessageInput(progress: 0.75, key: "k"), at: .seconds(1)).value.get().message
        #expect(updated.kind == .progress)
        #expect(updated.text == "Downloading")
        #expect(updated.duration == .seconds(60))
        #expect(updated.progress == 0.75)
    }

    /// A retried POST that changes nothing answers `.updated` and queues no duplicate and bumps no version.
    @Test func retryIsNoDuplicate() throws {
        var engine = makeEngine()
        try engine.posted(.message("Sending…", kind: .sending, key: "k"), at: .seconds(0))
        let version = engine.version
        let retried = engine.post(.message("Sending…", kind: .sending, key: "k"), at: .seconds(0.1)).value
        #expect(retried.map(\.message.id) == .success(1))
        #expect(retried.map(\.isUpdate) == .success(true))
        #expect(engine.version == version)
        #expect(engine.liveMessages.count == 1)
    }

    /// A key that matches a queued message updates it where it waits; `immediate` is ignored then.
    @Test func updatesAQueuedMessage() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.posted(.message("b", key: "k"), at: .seconds(0))
        try engine.posted(.message("c"), at: .seconds(0))
        let updated = try engine.post(.message("b2", immediate: true, key: "k"), at: .seconds(1)).value.get().message
        #expect(updated.id == 2)
        #expect(updated.state == .queued)
        #expect(engine.current?.id == 1)
        #expect(engine.queue.map(\.text) == ["b2", "c"])
    }

    /// A key whose message has ended starts a new message.
    @Test func endedKeyStartsNewMessage() throws {
        var engine = makeEngine()
        try engine.posted(.message("first", kind: .sent, key: "k"), at: .seconds(0))
        let again = try engine.posted(.message("second", key: "k"), at: .seconds(10))
        #expect(again.id == 2)
        #expect(again.key == "k")
        #expect(engine.message(id: 1)?.text == "first")
        #expect(engine.message(id: 1)?.state == .done)
    }

    /// A cancelled key starts a new message too.
    @Test func cancelledKeyStartsNewMessage() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.posted(.message("b", key: "k"), at: .seconds(0))
        try engine.deleted(2, at: .seconds(0))
        let again = try engine.posted(.message("b again", key: "k"), at: .seconds(0))
        #expect(again.id == 3)
    }

    /// A keyed update needs no place in the queue, so it goes through when the queue is full.
    @Test func updateThroughFullQueue() throws {
        var engine = makeEngine { $0.maxQueue = 1 }
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.posted(.message("b", key: "k"), at: .seconds(0))
        let full = engine.post(.message("c"), at: .seconds(0)).value
        #expect(full == .failure(.queueFull(limit: 1, retryAfter: .seconds(2.75))))
        #expect(engine.queue.count == 1)
        let updated = engine.post(.message("b2", key: "k"), at: .seconds(0)).value
        #expect(updated.map(\.message.text) == .success("b2"))
    }

    /// A keyed update is checked like a PATCH: a text of blanks is refused and nothing changes.
    @Test func updateIsValidated() throws {
        var engine = makeEngine()
        try engine.posted(.message("a", key: "k"), at: .seconds(0))
        let version = engine.version
        let blank = engine.post(.message("   ", key: "k"), at: .seconds(0)).value
        let outOfRange = engine.post(MessageInput(progress: 2, key: "k"), at: .seconds(0)).value
        #expect(blank.refusedField == "text")
        #expect(outOfRange.refusedField == "progress")
        #expect(engine.version == version)
        #expect(engine.current?.text == "a")
    }
}
