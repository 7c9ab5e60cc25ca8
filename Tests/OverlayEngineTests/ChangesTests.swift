import Testing

@testable import OverlayEngine

/// `Changes`: ids kept in the order recorded, a repeat in a row kept once, past the inline ones
/// too, and merging keeps both sides.
@Suite("Changes")
struct ChangesTests {
    @Test func recordsInOrderAndSkipsImmediateRepeats() {
        var changes = Changes()
        #expect(changes.isEmpty)
        for id: Int64 in [5, 5, 7, 5, 9, 9, 9, 11, 12, 12, 13, 5] { changes.record(id) }
        #expect(changes.messages == [5, 7, 5, 9, 11, 12, 13, 5])
        #expect(!changes.isEmpty)
        #expect(!changes.versionMoved)
    }

    @Test func versionAloneIsAChange() {
        var changes = Changes()
        changes.recordVersionMoved()
        #expect(!changes.isEmpty)
        #expect(changes.messages.isEmpty)
    }

    @Test func mergeAppendsAndKeepsTheVersion() {
        var first = Changes()
        for id: Int64 in [1, 2, 3] { first.record(id) }
        var second = Changes()
        for id: Int64 in [3, 4, 5, 6, 7] { second.record(id) }
        second.recordVersionMoved()
        var merged = first
        merged.merge(second)
        #expect(merged.messages == [1, 2, 3, 4, 5, 6, 7])
        #expect(merged.versionMoved)
        var empty = Changes()
        empty.merge(Changes())
        #expect(empty.isEmpty)
        var same = Changes()
        for id: Int64 in 1...7 { same.record(id) }
        same.recordVersionMoved()
        #expect(merged == same)
    }
}
