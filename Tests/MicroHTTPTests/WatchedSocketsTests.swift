import Testing

@testable import MicroHTTP

/// The resumed-connection watch's bookkeeping, with time passed in (milliseconds here).
@Suite("Watched sockets")
struct WatchedSocketsTests {
    private static let ms: Int64 = 1_000_000

    /// `due(at:)`, outside `#expect` (which cannot call a mutating method).
    private static func due(_ watched: inout WatchedSockets, _ now: Int64) -> [Int32] {
        watched.due(at: now)
    }

    private func watch() -> WatchedSockets {
        WatchedSockets(grace: 100 * Self.ms, limit: 30_000 * Self.ms)
    }

    /// A watch is not looked at within its grace; after it, on every tick until it ends.
    @Test func lookedAtOnlyAfterTheGrace() {
        var watched = watch()
        watched.watch(7, at: 0)
        #expect(Self.due(&watched, 50 * Self.ms).isEmpty)
        #expect(Self.due(&watched, 99 * Self.ms).isEmpty)
        #expect(Self.due(&watched, 100 * Self.ms) == [7])
        #expect(Self.due(&watched, 120 * Self.ms) == [7])
        #expect(watched.count == 1)
    }

    /// A next request that starts within the grace ends the watch unseen: a fan-out's answers
    /// cost nothing here.
    @Test func unwatchedWithinTheGraceIsNeverLookedAt() {
        var watched = watch()
        for socket in Int32(0)..<1000 { watched.watch(socket, at: Int64(socket) * 1000) }
        var unwatched = 0
        for socket in Int32(0)..<1000 where watched.unwatch(socket) { unwatched += 1 }
        #expect(unwatched == 1000)
        let again = watched.unwatch(3)
        #expect(!again)
        #expect(Self.due(&watched, 500 * Self.ms).isEmpty)
        #expect(watched.count == 0)
    }

    /// Unwatched after its grace: no longer looked at.
    @Test func unwatchedAfterTheGraceStops() {
        var watched = watch()
        watched.watch(4, at: 0)
        #expect(Self.due(&watched, 150 * Self.ms) == [4])
        watched.unwatch(4)
        #expect(Self.due(&watched, 170 * Self.ms).isEmpty)
    }

    /// A watch ends after its limit (30 s) without a next request.
    @Test func endsAtItsLimit() {
        var watched = watch()
        watched.watch(9, at: 0)
        #expect(Self.due(&watched, 29_999 * Self.ms) == [9])
        #expect(Self.due(&watched, 30_000 * Self.ms).isEmpty)
        #expect(watched.count == 0)
    }

    /// A socket found closed is forgotten at once.
    @Test func closedIsForgotten() {
        var watched = watch()
        watched.watch(5, at: 0)
        watched.watch(6, at: 0)
        #expect(Set(Self.due(&watched, 200 * Self.ms)) == [5, 6])
        watched.closed([5])
        #expect(Self.due(&watched, 220 * Self.ms) == [6])
        #expect(watched.count == 1)
    }

    /// A socket number watched again (a new connection, or its next answer) is a new watch with
    /// its own grace; what was kept of the old one neither shows it early nor ends the new one.
    @Test func watchedAgainIsANewWatch() {
        var watched = watch()
        watched.watch(3, at: 0)
        #expect(Self.due(&watched, 150 * Self.ms) == [3])
        watched.watch(3, at: 160 * Self.ms)
        #expect(Self.due(&watched, 200 * Self.ms).isEmpty)
        // The old watch found closed after the new one began: the new one stands.
        watched.closed([3])
        #expect(watched.count == 1)
        #expect(Self.due(&watched, 260 * Self.ms) == [3])
        // The first watch's limit (30 s from 0) does not end the second, which has its own.
        #expect(Self.due(&watched, 30_100 * Self.ms) == [3])
        #expect(Self.due(&watched, 30_160 * Self.ms).isEmpty)
        #expect(watched.count == 0)
    }

    /// Socket numbers index the bookkeeping directly: a high one grows it, one never watched (or
    /// beyond what was ever watched, or negative) is not watched, and watching a socket twice
    /// counts it once.
    @Test func socketNumbersHighAndStrange() {
        var watched = watch()
        watched.watch(50_000, at: 0)
        watched.watch(2, at: 0)
        watched.watch(2, at: 10 * Self.ms)
        watched.watch(-1, at: 0)
        #expect(watched.count == 2)
        let neverWatched = watched.unwatch(3)
        let beyond = watched.unwatch(90_000)
        let negative = watched.unwatch(-1)
        #expect(!neverWatched && !beyond && !negative)
        #expect(Set(Self.due(&watched, 200 * Self.ms)) == [2, 50_000])
        let high = watched.unwatch(50_000)
        #expect(high)
        #expect(watched.count == 1)
        #expect(Self.due(&watched, 220 * Self.ms) == [2])
    }
}
