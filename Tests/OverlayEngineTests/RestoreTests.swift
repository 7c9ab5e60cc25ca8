import Testing

@testable import OverlayEngine

/// `OverlayEngine.restored(…)`: after a restart the shown message goes back to the head of the
/// queue and shows again from the start of its animation, the queued ones keep their order, ids
/// and versions go on, the history stays (bounded by `historySize`), and the changes it returns
/// (and those every later event returns) say what a store must write.
@Suite("Restore")
struct RestoreTests {
    /// The shown message is shown again from the start of the show animation: phase `showing`,
    /// contentOffset −h, state `showing`, no timer yet; its display time starts when the slide ends.
    @Test func shownMessageShowsAgainFromTheStart() throws {
        var before = makeEngine()
        try before.posted(.message("shown", kind: .sent), at: .seconds(0))
        try before.posted(.message("second"), at: .seconds(0.5))
        before.advance(to: .seconds(1.5))
        #expect(before.phase == .visible)

        let now = Instant.seconds(7.5)
        let engine = OverlayEngine(
            configuration: EngineConfiguration(), restoring: StoredEngine(before), now: now)
        #expect(engine.now == now)
        #expect(engine.phase == .showing)
        #expect(engine.transition == .contentOffset(from: -20, to: 0, start: 7.5, duration: 0.25))
        let shown = try #require(engine.liveMessages.first)
        #expect(shown.id == 1)
        #expect(shown.text == "shown")
        #expect(shown.state == .showing)
        #expect(shown.shownAt == now)
        #expect(shown.displayStartedAt == nil)
        #expect(shown.deadline == nil)

        let overlay = engine.overlay(at: now)
        #expect(overlay.phase == .showing)
        #expect(overlay.contentOffset == -20)
        #expect(overlay.alpha == 1)
        #expect(overlay.message?.id == 1)
        #expect(overlay.message?.state == .showing)
        #expect(overlay.label?.frame == Rect(x: 30, y: -20, width: 708, height: 20))
        #expect(overlay.queued == 1)
        #expect(engine.overlay(at: .seconds(7.625)).contentOffset == -10)

        // The whole display time again, counted from the end of the new slide-in.
        var running = engine
        running.advance(to: .seconds(7.75))
        #expect(running.phase == .visible)
        #expect(running.liveMessages.first?.displayStartedAt == .seconds(7.75))
        #expect(running.nextDeadline == .seconds(9.75))
        running.advance(to: .seconds(9.75))
        #expect(running.message(id: 1)?.state == .done)
        #expect(running.liveMessages.map(\.id) == [2])
        #expect(running.liveMessages.first?.state == .showing)
    }

    /// With `fade` the restored message fades in again from alpha 0.
    @Test func fadeShowsAgainFromAlphaZero() throws {
        var before = makeEngine { $0.showStyle = .fade }
        try before.posted(.message("a"), at: .seconds(0))
        before.advance(to: .seconds(1))
        var configuration = EngineConfiguration()
        configuration.showStyle = .fade
        let engine = OverlayEngine(configuration: configuration, restoring: StoredEngine(before), now: .zero)
        #expect(engine.phase == .showing)
        let overlay = engine.overlay(at: .zero)
        #expect(overlay.alpha == 0)
        #expect(overlay.contentOffset == 0)
        #expect(engine.transition == .alpha(from: 0, to: 1, start: 0, duration: 0.25))
    }

    /// A message caught in its hide (already `done`) is history, not shown again; a message that
    /// waited for the hide shows.
    @Test func messageThatWaitedForAHideShows() throws {
        var before = makeEngine()
        try before.posted(.message("a", duration: 1), at: .seconds(0))
        before.advance(to: .seconds(1.3))
        #expect(before.phase == .hiding)
        try before.posted(.message("b"), at: .seconds(1.3))
        let engine = OverlayEngine(
            configuration: EngineConfiguration(), restoring: StoredEngine(before), now: .zero)
        #expect(engine.liveMessages.map(\.id) == [2])
        #expect(engine.phase == .showing)
        #expect(engine.message(id: 1)?.state == .done)
    }

    /// The queue keeps its order, also with a sticky message an `immediate` sent back to the head
    /// (its `queueOrder` is below the others') and a `failed` ahead of an earlier `info` (its
    /// priority is higher), whatever order the store hands them in.
    @Test func queueOrderKeptIncludingRequeuedHead() throws {
        var before = makeEngine()
        try before.posted(.message("sticky", kind: .sending, key: "upload"), at: .seconds(0))
        try before.posted(.message("b"), at: .seconds(0.1))
        try before.posted(.message("c", kind: .failed), at: .seconds(0.2))
        before.advance(to: .seconds(1))
        try before.posted(.message("urgent", kind: .failed, immediate: true), at: .seconds(1))
        #expect(before.liveMessages.map(\.text) == ["urgent", "sticky", "c", "b"])
        #expect(before.queue.first?.queueOrder ?? 0 < before.queue.last?.queueOrder ?? 0)

        var state = StoredEngine(before)
        for order in [state.live, state.live.reversed(), state.live.shuffled()] {
            state.live = order
            let engine = OverlayEngine(configuration: EngineConfiguration(), restoring: state, now: .zero)
            #expect(engine.liveMessages.map(\.text) == ["urgent", "sticky", "c", "b"])
            #expect(engine.liveMessages.map(\.state) == [.showing, .queued, .queued, .queued])
            #expect(engine.queue.map(\.priority) == [.default, .high, .default])
            #expect(Set(engine.queue.map(\.queueOrder)).count == 3)
        }

        // Restored again after more traffic (requeue at the head, append at the tail): still in order.
        var engine = OverlayEngine(configuration: EngineConfiguration(), restoring: state, now: .zero)
        engine.advance(to: .seconds(0.25))
        try engine.posted(.message("tail"), at: .seconds(0.3))
        try engine.posted(.message("urgent 2", kind: .sent, immediate: true), at: .seconds(0.4))
        let expected = ["urgent 2", "sticky", "c", "b", "tail"]
        #expect(engine.liveMessages.map(\.text) == expected)
        var second = StoredEngine(engine)
        second.live.reverse()
        let again = OverlayEngine(configuration: EngineConfiguration(), restoring: second, now: .seconds(2))
        #expect(again.liveMessages.map(\.text) == expected)
    }

    /// A queued message's fields survive: kind, text, progress, duration, key (a POST with the key
    /// updates the restored message), immediate.
    @Test func fieldsAndKeysSurvive() throws {
        var before = makeEngine()
        try before.posted(.message("Downloading…", kind: .progress, progress: 0.25, key: "dl-7"), at: .seconds(0))
        try before.posted(.message("later", kind: .sent, duration: 42.5), at: .seconds(0))
        var engine = OverlayEngine(
            configuration: EngineConfiguration(), restoring: StoredEngine(before), now: .zero)
        let restored = engine.liveMessages
        #expect(restored.map(\.kind) == [.progress, .sent])
        #expect(restored.map(\.progress) == [0.25, nil])
        #expect(restored.map(\.duration) == [nil, .seconds(42.5)])
        #expect(restored.map(\.key) == ["dl-7", nil])
        #expect(engine.overlay(at: .zero).progressBar?.progress == 0.25)

        let outcome = try engine.post(.message("Downloading…", progress: 0.5, key: "dl-7"), at: .seconds(0.5)).value
            .get()
        #expect(outcome.isUpdate)
        #expect(outcome.message.id == 1)
        #expect(outcome.message.progress == 0.5)
    }

    /// Ids go on from `nextID` and versions from `version`: one bump for the restart's own show,
    /// none when nothing is live.
    @Test func idsAndVersionsContinue() throws {
        var before = makeEngine()
        try before.posted(.message("a"), at: .seconds(0))
        let state = StoredEngine(before, version: 100_007, nextID: 1_005)
        var engine = OverlayEngine(configuration: EngineConfiguration(), restoring: state, now: .zero)
        #expect(engine.version == 100_008)
        #expect(engine.nextID == 1_005)
        let posted = try engine.posted(.message("b"), at: .seconds(0.1))
        #expect(posted.id == 1_005)
        #expect(engine.version == 100_009)

        var empty = StoredEngine(makeEngine(), version: 500, nextID: 9)
        empty.live = []
        let idle = OverlayEngine(configuration: EngineConfiguration(), restoring: empty, now: .seconds(3))
        #expect(idle.version == 500)
        #expect(idle.phase == .hidden)
        #expect(idle.nextDeadline == nil)
        #expect(empty.restore(now: .seconds(3)).changes.isEmpty)
    }

    /// Orientation and device come back; an unknown device (nil) leaves the configured one.
    @Test func orientationAndDeviceRestored() throws {
        var before = makeEngine()
        before.changeOrientation(to: .landscapeRight, at: .seconds(0))
        before.changeDevice(to: .iphone, at: .seconds(0))
        try before.posted(.message("a"), at: .seconds(0))
        var state = StoredEngine(before)
        let engine = OverlayEngine(configuration: EngineConfiguration(), restoring: state, now: .zero)
        #expect(engine.orientation == .landscapeRight)
        #expect(engine.device == .iphone)
        let overlay = engine.overlay(at: .zero)
        #expect(overlay.frame == Rect(x: 300, y: 0, width: 20, height: 480))
        #expect(overlay.rotation == 90)
        #expect(overlay.phase == .showing)

        state.state.device = "no-such-device"
        let unknown = OverlayEngine(configuration: EngineConfiguration(), restoring: state, now: .zero)
        #expect(unknown.device == .ipad)
        #expect(unknown.orientation == .landscapeRight)
    }

    /// A restored sticky message gets its full `maxStickySeconds` again from its new display start.
    @Test func stickyExpiryStartsAgain() throws {
        var before = makeEngine()
        try before.posted(.message("Sending…", kind: .sending), at: .seconds(0))
        before.advance(to: .seconds(250))
        var engine = OverlayEngine(
            configuration: EngineConfiguration(), restoring: StoredEngine(before), now: .seconds(1))
        engine.advance(to: .seconds(1.25))
        #expect(engine.nextDeadline == .seconds(301.25))
        engine.advance(to: .seconds(301.25))
        #expect(engine.message(id: 1)?.state == .expired)
    }

    /// The history is kept, oldest first, with each message's end state; at most `historySize`.
    @Test func historyKeptAndBounded() throws {
        var before = makeEngine()
        for index in 1...5 {
            try before.posted(.message("m\(index)", duration: 1), at: .seconds(Double(index) * 10))
        }
        try before.posted(.message("cancelled"), at: .seconds(60))
        try before.posted(.message("queued"), at: .seconds(60))
        try before.deleted(7, at: .seconds(60.1))
        #expect(before.history.map(\.id) == [1, 2, 3, 4, 5, 7])
        let state = StoredEngine(before)

        let all = OverlayEngine(configuration: EngineConfiguration(), restoring: state, now: .zero)
        #expect(all.history.map(\.id) == [1, 2, 3, 4, 5, 7])
        #expect(all.message(id: 1)?.state == .done)
        #expect(all.message(id: 1)?.endedAt == .seconds(11.25))
        #expect(all.message(id: 7)?.state == .cancelled)
        #expect(all.message(id: 3)?.text == "m3")

        var small = EngineConfiguration()
        small.historySize = 3
        let restored = state.restore(configuration: small)
        let bounded = restored.value
        #expect(bounded.history.map(\.id) == [4, 5, 7])
        #expect(bounded.message(id: 1) == nil)
        #expect(bounded.message(id: 3) == nil)
        // The dropped ones are among the changes, so that the store deletes their rows.
        let changed = Set(restored.changes.messages)
        #expect(changed.isSuperset(of: [1, 2, 3]))
        #expect(changed.contains(6))
        #expect(!changed.contains(4))
    }

    /// The changes of a restore list every live message (each has a new place in the queue and
    /// the shown one a new state), and then each event returns its own: a post, a PATCH, a
    /// DELETE, a deadline, a message dropped from the history.
    @Test func changesOfEachEvent() throws {
        var before = makeEngine()
        try before.posted(.message("a", duration: 1), at: .seconds(0))
        try before.posted(.message("b", duration: 1), at: .seconds(0))
        try before.posted(.message("c", duration: 1), at: .seconds(0))
        try before.posted(.message("d", duration: 1), at: .seconds(0))
        var small = EngineConfiguration()
        small.historySize = 2
        let restored = StoredEngine(before, nextID: 10).restore(configuration: small)
        var engine = restored.value
        #expect(Set(restored.changes.messages) == [1, 2, 3, 4])
        #expect(restored.changes.versionMoved)

        func changed(_ changes: Changes) -> Set<Int64> { Set(changes.messages) }
        #expect(changed(engine.post(.message("e"), at: .seconds(0.1)).changes) == [10])
        #expect(changed(engine.update(id: 3, with: .message("c!"), at: .seconds(0.1)).changes) == [3])
        #expect(changed(engine.delete(id: 4, at: .seconds(0.1)).changes) == [4])
        // A PATCH that changes nothing changes nothing.
        let unchanged = engine.update(id: 3, with: .message("c!"), at: .seconds(0.1))
        #expect(unchanged.changes.isEmpty)
        #expect(!unchanged.changes.versionMoved)
        // A refused event changes nothing either.
        #expect(engine.update(id: 99, with: .message("x"), at: .seconds(0.1)).changes.isEmpty)

        // The show's end starts 1's timer; its end ends 1 and shows 2.
        let shown = engine.advance(to: .seconds(0.25))
        #expect(changed(shown) == [1])
        #expect(shown.versionMoved)
        #expect(changed(engine.advance(to: .seconds(1.25))) == [1, 2])
        // History holds 4 and 1; 2 ending pushes 4 out, 3 ending pushes 1 out.
        #expect(changed(engine.advance(to: .seconds(2.25))) == [2, 3, 4])
        #expect(engine.history.map(\.id) == [1, 2])
        // An event reports the deadlines it reached first with its own changes.
        let posted = engine.post(.message("f"), at: .seconds(3.25))
        #expect(changed(posted.changes) == [1, 3, 10, 11])
        #expect(engine.history.map(\.id) == [2, 3])
        #expect(engine.message(id: 1) == nil)
        // Time alone, with no deadline reached, changes nothing.
        #expect(engine.advance(to: .seconds(3.3)).isEmpty)
    }
}
