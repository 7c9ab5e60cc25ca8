import TestSupport
import Testing

@testable import OverlayEngine

/// The indexes behind the single-message operations (by id, by key, pages after a cursor)
/// against plain scans of the whole queue and history, through long random runs of every event,
/// the status bar's holds included.
@Suite("Indexes and pages")
struct IndexTests {
    /// A message by id as a scan finds it: the shown one, the queued ones, then the history.
    static func scanned(_ engine: OverlayEngine, id: Int64) -> Message? {
        if let current = engine.current, current.id == id { return current }
        return engine.queue.first { $0.id == id } ?? engine.history.last { $0.id == id }
            ?? engine.scheduledMessages.first { $0.id == id }
    }

    /// Every page size walks the live messages exactly, in order, ending with no next cursor.
    static func expectPagesWalkTheQueue(
        _ engine: OverlayEngine, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let all = engine.liveMessages
        for limit in [1, 2, 3, 7, 1000] {
            var walked: [Message] = []
            var cursor: Int64?
            var pages = 0
            repeat {
                guard let page = engine.liveMessages(after: cursor, limit: limit) else {
                    Issue.record("cursor \(String(describing: cursor)) lost", sourceLocation: sourceLocation)
                    return
                }
                #expect(page.messages.count <= limit, sourceLocation: sourceLocation)
                walked += page.messages
                cursor = page.next
                pages += 1
            } while cursor != nil && pages <= all.count + 1
            #expect(walked == all, "limit \(limit)", sourceLocation: sourceLocation)
        }
    }

    @Test func randomRunsAgreeWithScans() throws {
        for seed: UInt64 in 1...6 {
            var generator = SplitMix(seed: seed)
            var engine = makeEngine {
                $0.historySize = 5
                $0.maxQueue = 50
                $0.statusBar.hiddenAtLaunch = seed.isMultiple(of: 2)
            }
            var time = Instant.zero
            let keys = ["a", "b", "c", "d"]
            var held = 0
            var scheduled = 0
            var expired = 0
            for _ in 0..<400 {
                time = time + .seconds(Double(Int.random(in: 0...3, using: &generator)) * 0.1)
                let anyID = Int64.random(in: 1...max(1, engine.nextID), using: &generator)
                switch Int.random(in: 0..<12, using: &generator) {
                case 0..<3:
                    let key = Bool.random(using: &generator) ? keys.randomElement(using: &generator) : nil
                    let kind = MessageKind.allCases.randomElement(using: &generator)
                    var input = MessageInput.message(
                        "m", kind: kind, duration: Bool.random(using: &generator) ? 0.3 : nil,
                        immediate: Int.random(in: 0..<5, using: &generator) == 0, key: key)
                    input.priority =
                        Bool.random(using: &generator) ? Priority.allCases.randomElement(using: &generator) : nil
                    if Int.random(in: 0..<3, using: &generator) == 0 {
                        input.expires = .seconds(Double(Int.random(in: 1...20, using: &generator)) * 0.1)
                    }
                    if Int.random(in: 0..<4, using: &generator) == 0 {
                        input.delay = .seconds(Double(Int.random(in: 1...20, using: &generator)) * 0.1)
                    }
                    _ = engine.post(input, at: time)
                case 3:
                    // A keyed POST finds the live message with its key, as a scan does.
                    let key = keys.randomElement(using: &generator)!
                    let expected = (engine.liveMessages + engine.scheduledMessages).first { $0.key == key }?.id
                    let outcome = try engine.post(MessageInput(text: "updated", key: key), at: time).value.get()
                    if let expected {
                        #expect(outcome == .updated(outcome.message))
                        #expect(outcome.message.id == expected)
                    } else {
                        #expect(outcome.message.key == key)
                        #expect(outcome == .created(outcome.message))
                    }
                case 4:
                    var change = MessageInput(text: "patched \(time)")
                    switch Int.random(in: 0..<4, using: &generator) {
                    case 0: change.priority = Priority.allCases.randomElement(using: &generator)
                    case 1: change.expires = .seconds(Double(Int.random(in: 1...20, using: &generator)) * 0.1)
                    case 2: change.delay = .seconds(Double(Int.random(in: 1...20, using: &generator)) * 0.1)
                    default: break
                    }
                    _ = engine.update(id: anyID, with: change, at: time)
                case 5:
                    _ = engine.delete(id: anyID, at: time)
                case 6:
                    engine.changeOrientation(to: Orientation.allCases.randomElement(using: &generator)!, at: time)
                case 7, 8:
                    // The bar hides (the shown message goes back to the head of the queue, posts
                    // wait, immediate ones go to the head) or shows (the head shows).
                    let input = StatusBarInput(
                        hidden: Bool.random(using: &generator),
                        animation: StatusBarAnimation.allCases.randomElement(using: &generator))
                    _ = engine.setStatusBar(input, at: time)
                default:
                    time = time + .seconds(Double(Int.random(in: 0...30, using: &generator)) * 0.1)
                    engine.advance(to: time)
                }
                for id in 1..<engine.nextID {
                    #expect(engine.message(id: id) == IndexTests.scanned(engine, id: id), "seed \(seed), id \(id)")
                }
                // At most one live message per key.
                let liveKeys = engine.liveMessages.compactMap(\.key)
                #expect(Set(liveKeys).count == liveKeys.count)
                // The linked order is the stored one, which a restart goes by: those sent to the
                // head (`queueOrder` below 0) first, then by priority, then by `queueOrder`.
                let orders = engine.queue.map { ($0.queueOrder < 0 ? 6 : $0.priority.rawValue, -$0.queueOrder) }
                #expect(orders.elementsEqual(orders.sorted { $0 > $1 }, by: ==), "seed \(seed)")
                #expect(Set(engine.queue.map(\.queueOrder)).count == orders.count, "seed \(seed)")
                #expect(engine.queue.allSatisfy { $0.state == .queued })
                // Every time that has come was reached: no waiting message is past its expiry,
                // no scheduled one past its time, and the next deadline is no later than either.
                #expect(engine.queue.allSatisfy { ($0.expiresAt ?? .seconds(1e9)) > engine.now }, "seed \(seed)")
                #expect(engine.queue.allSatisfy { $0.expiresAt == nil || !$0.hasBeenShown })
                #expect(engine.scheduledMessages.allSatisfy { $0.state == .scheduled && $0.scheduledFor! > engine.now })
                let soonest =
                    (engine.queue.compactMap(\.expiresAt) + engine.scheduledMessages.compactMap(\.scheduledFor)).min()
                if let soonest { #expect(engine.nextDeadline.map { $0 <= soonest } == true, "seed \(seed)") }
                IndexTests.expectPagesWalkTheQueue(engine)
                if engine.statusBar.holdsOverlay && !engine.queue.isEmpty { held += 1 }
                if !engine.scheduledMessages.isEmpty { scheduled += 1 }
                if engine.history.contains(where: { $0.state == .expired && $0.expires != nil }) { expired += 1 }
            }
            #expect(held > 0, "seed \(seed): the bar never held a queue")
            #expect(scheduled > 0 && expired > 0, "seed \(seed): nothing was scheduled, or nothing expired waiting")
        }
    }

    /// The hold's rules through the indexes: the shown message goes back to the head (found by
    /// id and by key, first in every page), posts wait at the end, an immediate one goes before
    /// it, a keyed POST updates the held message in place, and showing the bar takes the head.
    @Test func holdGoesThroughTheIndexes() throws {
        var engine = makeEngine()
        try engine.posted(.message("shown", kind: .sending, key: "up"), at: .zero)
        try engine.posted(.message("second"), at: .zero)
        engine.advance(to: .seconds(1))
        #expect(engine.current?.id == 1)
        try engine.setBar(hidden: true, animation: .fade, at: 1)
        #expect(engine.queue.map(\.id) == [1, 2])
        #expect(engine.queue[id: 1]?.state == .queued)
        #expect(engine.queue.first?.id == 1)
        #expect(engine.message(id: 1)?.state == .queued)
        #expect(engine.liveMessages(after: nil, limit: 1) == MessagePage(messages: [engine.queue[id: 1]!], next: 1))
        // A post while held waits at the end; an immediate one goes to the head.
        try engine.posted(.message("third"), at: .seconds(2))
        try engine.posted(.message("urgent", kind: .failed, immediate: true), at: .seconds(2))
        #expect(engine.queue.map(\.id) == [4, 1, 2, 3])
        #expect(engine.liveMessages(after: 4, limit: 2)?.messages.map(\.id) == [1, 2])
        // The held message is still live under its key: a keyed POST updates it where it waits.
        let updated = try engine.post(MessageInput(text: "shown, updated", key: "up"), at: .seconds(3)).value.get()
        #expect(updated == .updated(updated.message))
        #expect(updated.message.id == 1)
        #expect(engine.queue.map(\.id) == [4, 1, 2, 3])
        #expect(engine.queue[id: 1]?.text == "shown, updated")
        // A DELETE out of the held queue; then the bar shows and the head shows.
        try engine.deleted(2, at: .seconds(3))
        try engine.setBar(hidden: false, at: 4)
        #expect(engine.current?.id == 4)
        #expect(engine.queue.map(\.id) == [1, 3])
        #expect(engine.liveMessages(after: nil, limit: 10)?.messages.map(\.id) == [4, 1, 3])
        #expect(engine.liveMessages(after: 4, limit: 10)?.messages.map(\.id) == [1, 3])
        IndexTests.expectPagesWalkTheQueue(engine)
    }

    @Test func pagesStartWithTheShownMessage() throws {
        var engine = makeEngine()
        for index in 1...5 { try engine.posted(.message("m\(index)", kind: .sending), at: .zero) }
        #expect(engine.current?.id == 1)
        let first = try #require(engine.liveMessages(after: nil, limit: 2))
        #expect(first.messages.map(\.id) == [1, 2])
        #expect(first.next == 2)
        // After the shown message come the queued ones from the first.
        #expect(engine.liveMessages(after: 1, limit: 10)?.messages.map(\.id) == [2, 3, 4, 5])
        #expect(engine.liveMessages(after: 1, limit: 10)?.next == nil)
        #expect(engine.liveMessages(after: 3, limit: 1)?.messages.map(\.id) == [4])
        #expect(engine.liveMessages(after: 3, limit: 1)?.next == 4)
        #expect(engine.liveMessages(after: 5, limit: 3) == MessagePage(messages: [], next: nil))
        // A limit below one reads one.
        #expect(engine.liveMessages(after: nil, limit: 0)?.messages.map(\.id) == [1])
        // A cursor that is no longer live, or never was, is refused rather than guessed at.
        try engine.deleted(3, at: .zero)
        #expect(engine.liveMessages(after: 3, limit: 10) == nil)
        #expect(engine.liveMessages(after: 99, limit: 10) == nil)
        // The order survives a delete in the middle and a message sent back to the head.
        #expect(engine.liveMessages(after: 2, limit: 10)?.messages.map(\.id) == [4, 5])
        engine.advance(to: .seconds(1))
        try engine.posted(.message("urgent", kind: .sent, immediate: true), at: .seconds(1))
        #expect(engine.liveMessages(after: nil, limit: 10)?.messages.map(\.id) == [6, 1, 2, 4, 5])
    }

    /// A DELETE out of the middle and a PATCH of a queued message leave the others' order.
    @Test func middleOfTheQueue() throws {
        var engine = makeEngine()
        for index in 1...6 { try engine.posted(.message("m\(index)"), at: .zero) }
        try engine.deleted(4, at: .zero)
        try engine.patched(3, .message("three"), at: .zero)
        #expect(engine.queue.map(\.id) == [2, 3, 5, 6])
        #expect(engine.queue[id: 3]?.text == "three")
        #expect(engine.queue[id: 4] == nil)
        #expect(engine.message(id: 4)?.state == .cancelled)
        #expect(engine.queue.first?.id == 2)
        #expect(engine.queue.last?.id == 6)
        try engine.deleted(6, at: .zero)
        try engine.deleted(2, at: .zero)
        #expect(engine.queue.map(\.id) == [3, 5])
        #expect(engine.queue.first?.id == 3)
        #expect(engine.queue.last?.id == 5)
    }
}
