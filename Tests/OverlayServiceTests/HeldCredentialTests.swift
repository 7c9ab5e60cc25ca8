import MicroHTTP
import TestSupport
import Testing

@testable import OverlayService

/// Readers held with a credential that expires (`HeldReaders`), without a close handler to tell
/// it when a reader is over: the expiry ends the reader still open, and the one already over is
/// left alone, its deadline gone with its hold.
@Suite("Held credentials")
struct HeldCredentialTests {
    static let now: Int64 = 1_800_000_000

    /// A signed token's principal that expires `after` seconds from `now`.
    static func expiring(after seconds: Int64) -> Principal {
        Principal(.signed(subject: "viewer"), grants: .readAll, expiresAt: now + seconds)
    }

    /// At its expiry a stream still open ends (`AccessLiveTests` reads its `event: error` over a
    /// socket); one that ended before is left as it was, and its hold goes when its own expiry
    /// fires.
    @Test func expiryEndsTheOpenStreamAndLeavesTheFinishedOne() {
        let scheduler = DeadlineScheduler()
        defer { scheduler.stop() }
        let held = HeldReaders(scheduler: scheduler, wallSeconds: { Self.now }, tokenIsLive: { _ in true })
        let finished = HTTPStream()
        finished.end()
        let open = HTTPStream()
        // Expired already: both deadlines are due at once.
        held.hold(.stream(finished), by: Self.expiring(after: 0))
        held.hold(.stream(open), by: Self.expiring(after: 0))
        #expect(eventually { held.count == 0 })
        #expect(open.isClosed && open.takeBuffered().ended)
        #expect(finished.isClosed && finished.takeBuffered() == ([], true))
        #expect(scheduler.pending == 0)
    }

    /// Holds of readers that are over are swept as holds come, and their expiries with them: the
    /// scheduler keeps only the deadlines of readers still open.
    @Test func finishedReadersLeaveNoDeadline() {
        let scheduler = DeadlineScheduler()
        defer { scheduler.stop() }
        let held = HeldReaders(scheduler: scheduler, wallSeconds: { Self.now }, tokenIsLive: { _ in true })
        let principal = Self.expiring(after: 3_600)
        var finished: [HTTPStream] = []
        for _ in 0..<64 {
            let stream = HTTPStream()
            held.hold(.stream(stream), by: principal)
            finished.append(stream)
        }
        #expect(scheduler.pending == 64)
        for stream in finished { stream.end() }
        let open = HTTPStream()
        // The 65th hold sweeps the 64 that are over.
        held.hold(.stream(open), by: principal)
        #expect(held.count == 1)
        #expect(scheduler.pending == 1)
        #expect(!open.isClosed)
    }
}
