import Testing

@testable import OverlayEngine

/// Time in whole nanoseconds (docs/BEHAVIOUR.md): decimal seconds from clients land exactly.
@Suite("Time")
struct TimeTests {
    /// Seconds round to the nearest nanosecond, so 0.1 + 0.2 is exactly 0.3.
    @Test func exactDecimals() {
        #expect(Instant.seconds(0.1) + Interval.seconds(0.2) == Instant.seconds(0.3))
        #expect(Instant.seconds(1.125).nanoseconds == 1_125_000_000)
        #expect(Instant.seconds(1.125).seconds == 1.125)
        #expect(Interval.seconds(0.4).nanoseconds == 400_000_000)
        #expect(Instant.seconds(2) - Instant.seconds(0.5) == Interval.seconds(1.5))
    }

    /// A deadline is reached when now ≥ the deadline: steps of 0.1 s reach 0.25 + 2.5 exactly.
    @Test func deadlineReachedExactly() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        var now = Instant.zero
        while engine.phase != .hiding {
            now = now + .seconds(0.05)
            engine.advance(to: now)
        }
        #expect(now == .seconds(2.75))
    }

    /// Time beyond the clock's range saturates instead of trapping: such a deadline is never reached.
    @Test func saturates() {
        #expect(Instant(nanoseconds: .max) + .seconds(1) == Instant(nanoseconds: .max))
        #expect(Interval.seconds(.infinity).nanoseconds == .max)
        #expect(Interval.seconds(1e300) == Interval.seconds(Interval.maximumSeconds))
    }

    /// Events never move time back: an event stamped earlier than now happens now.
    @Test func timeNeverGoesBack() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(1))
        try engine.posted(.message("b"), at: .seconds(0.5))
        #expect(engine.now == .seconds(1))
        #expect(engine.message(id: 2)?.postedAt == .seconds(1))
        #expect(engine.overlay(at: .seconds(0)).now == .seconds(1))
    }
}
