import Testing

@testable import OverlayEngine

/// `endedMessages(after:limit:)`: the history, the most recently ended first, a page at a time.
@Suite("The ended messages")
struct EndedListTests {
    /// Five messages of 1 s each, ended in turn, with a history of 3: the latest three, newest
    /// first, in pages of 2; a cursor that has left the history is nil.
    @Test func newestFirstInPages() throws {
        var engine = makeEngine { $0.historySize = 3 }
        for index in 1...5 { try engine.posted(.message("m\(index)", duration: 1), at: .zero) }
        engine.advance(to: .seconds(100))
        #expect(engine.history.count == 3)
        let first = try #require(engine.endedMessages(after: nil, limit: 2))
        #expect(first.messages.map(\.id) == [5, 4] && first.next == 4)
        let second = try #require(engine.endedMessages(after: first.next, limit: 2))
        #expect(second.messages.map(\.id) == [3] && second.next == nil)
        #expect(first.messages.allSatisfy { $0.state == .done && $0.endedAt != nil })
        #expect(engine.endedMessages(after: 1, limit: 2) == nil)
        #expect(engine.endedMessages(after: 99, limit: 2) == nil)
        // A cancelled message ends now: it comes first.
        try engine.posted(.message("later", duration: 1), at: .seconds(100))
        try engine.posted(.message("queued"), at: .seconds(100))
        try engine.deleted(7, at: .seconds(100.5))
        let latest = try #require(engine.endedMessages(after: nil, limit: 10))
        #expect(latest.messages.map(\.id) == [7, 5, 4] && latest.messages.first?.state == .cancelled)
    }

    /// An empty history is an empty last page.
    @Test func empty() {
        let engine = makeEngine()
        #expect(engine.endedMessages(after: nil, limit: 5) == MessagePage(messages: [], next: nil))
    }
}
