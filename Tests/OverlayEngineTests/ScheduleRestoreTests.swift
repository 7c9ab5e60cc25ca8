import Testing

@testable import OverlayEngine

/// A restart with scheduled, expiring and prioritised messages (MODEL §11): stored times move
/// onto the new run's clock by the difference of the two clocks' epochs; what came due while the
/// server was down joins at start-up in the order of its times, what expired ends.
@Suite("Scheduled messages across a restart")
struct ScheduleRestoreTests {
    /// The engine as a store gives it back: every live and scheduled message, whole.
    static func restart(
        _ engine: OverlayEngine, epoch: Int64?, now: Instant, configure: (inout EngineConfiguration) -> Void = { _ in }
    ) -> OverlayEngine {
        var configuration = engine.configuration
        configuration.wallClockEpoch = epoch
        configure(&configuration)
        let live = engine.liveMessages + Array(engine.scheduledMessages)
        return OverlayEngine.restored(
            configuration: configuration, state: engine.state, live: live.shuffled(), history: Array(engine.history),
            devices: [:], now: now
        ).value
    }

    static let epoch: Int64 = 1_800_000_000_000_000_000

    /// Stopped at 5 s with messages due at 25 and 105; restarted 50 s of wall time after the
    /// first run's zero: the first came due while down and shows, the second is due at 55.
    @Test func timesMoveOntoTheNewClock() throws {
        var engine = makeEngine { $0.wallClockEpoch = Self.epoch }
        try engine.posted(MessageInput.later("soon", delay: 20), at: .seconds(5))
        try engine.posted(MessageInput.later("later", delay: 100), at: .seconds(5))
        let restarted = Self.restart(engine, epoch: Self.epoch + 50_000_000_000, now: .zero)
        #expect(restarted.current?.text == "soon" && restarted.current?.state == .showing)
        #expect(restarted.current?.joinedAt == .zero)
        #expect(restarted.scheduledMessages.map(\.scheduledFor) == [.seconds(55)])
        #expect(restarted.nextDeadline == .seconds(0.25))
        #expect(restarted.state.wallClockEpoch == Self.epoch + 50_000_000_000)
    }

    /// Those that came due while down join in the order of their times, then ids, whatever
    /// order they were posted and stored in; the rest stay scheduled.
    @Test func dueOnesJoinInOrder() throws {
        var engine = makeEngine { $0.wallClockEpoch = Self.epoch }
        try engine.posted(.message("upload", kind: .sending), at: .zero)
        for (text, delay) in [("c", 30.0), ("a", 10), ("b", 20), ("b2", 20), ("z", 500)] {
            try engine.posted(MessageInput.later(text, delay: delay), at: .zero)
        }
        let restarted = Self.restart(engine, epoch: Self.epoch + 100_000_000_000, now: .seconds(1))
        #expect(restarted.current?.text == "upload")
        #expect(restarted.queue.map(\.text) == ["a", "b", "b2", "c"])
        #expect(restarted.scheduledMessages.map(\.text) == ["z"])
        #expect(restarted.scheduledMessages.first?.scheduledFor == .seconds(400))
    }

    /// A waiting message whose expiry passed while the server was down ends `expired` at
    /// start-up; one whose expiry is still ahead keeps it, moved onto the new clock.
    @Test func expiredWhileDown() throws {
        var engine = makeEngine { $0.wallClockEpoch = Self.epoch }
        try engine.posted(.message("upload", kind: .sending, key: "u"), at: .zero)
        try engine.posted(MessageInput.expiring("short", after: 10), at: .seconds(1))
        try engine.posted(MessageInput.expiring("long", after: 100), at: .seconds(1))
        let restarted = Self.restart(engine, epoch: Self.epoch + 30_000_000_000, now: .zero)
        let short = try #require(restarted.message(id: 2))
        #expect(short.state == .expired && short.endedAt == .zero)
        #expect(restarted.queue.map(\.text) == ["long"])
        #expect(restarted.queue.first?.expiresAt == .seconds(71))
        #expect(restarted.nextDeadline == .seconds(0.25))
    }

    /// With the manual clock (no epoch) stored times stay the numbers they were.
    @Test func manualClockKeepsItsNumbers() throws {
        var engine = makeEngine()
        try engine.posted(MessageInput.later("x", delay: 20), at: .seconds(5))
        let restarted = Self.restart(engine, epoch: nil, now: .zero)
        #expect(restarted.scheduledMessages.first?.scheduledFor == .seconds(25))
        #expect(restarted.nextDeadline == .seconds(25))
    }

    /// Priorities that follow a kind are the new configuration's (info is max now, and joined
    /// before the message sent as max); the shown message stays ahead of every priority.
    @Test func prioritiesAfterARestart() throws {
        var engine = makeEngine()
        try engine.posted(MessageInput.ranked("upload", .min, kind: .sending), at: .zero)
        try engine.posted(.message("info"), at: .seconds(1))
        try engine.posted(.message("failed", kind: .failed), at: .seconds(2))
        try engine.posted(MessageInput.ranked("max", .max), at: .seconds(3))
        let same = Self.restart(engine, epoch: nil, now: .zero)
        #expect(same.liveMessages.map(\.text) == ["upload", "max", "failed", "info"])
        let changed = Self.restart(engine, epoch: nil, now: .zero) { $0.priorities = [.info: .max] }
        #expect(changed.liveMessages.map(\.text) == ["upload", "info", "max", "failed"])
    }
}
