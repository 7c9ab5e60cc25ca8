import MicroHTTP
import OverlayEngine
import Testing

@testable import OverlayService

/// The channel's state machine driven by hand: events with the time passed in, and what each
/// leaves to do compared as plain values. No socket, thread or clock.
@Suite("Channel state machine")
struct ChannelStateMachineTests {
    final class Reader: ParkedReader, CustomStringConvertible {
        let description: String
        var hasResponded = false
        init(_ name: String) { description = name }
    }

    typealias Machine = ChannelStateMachine<Reader>

    /// An action as a test compares it: readers by name, the overlay by version.
    enum Did: Equatable {
        case notify(version: UInt64, waiters: [String])
        case expire(version: UInt64, waiters: [String])
        case scheduleEngine(Instant?, generation: UInt64)
        case scheduleWaiters(Int64?, generation: UInt64)
    }

    static func did(_ transition: Machine.Transition) -> [Did] {
        transition.actions.map { action in
            switch action {
            case .notify(let overlay, let waiters, _):
                .notify(version: overlay.version, waiters: waiters.map(\.reader.description))
            case .expire(let version, let waiters):
                .expire(version: version, waiters: waiters.map(\.reader.description))
            case .scheduleEngine(let at, let generation): .scheduleEngine(at, generation: generation)
            case .scheduleWaiters(let at, let generation): .scheduleWaiters(at, generation: generation)
            }
        }
    }

    static func machine(
        clock: ClockMode = .manual, stores: Bool = false, publishes: Bool = false
    ) -> Machine {
        Machine(
            Machine.Setting(name: "test", clock: clock, stores: stores, publishes: publishes),
            engine: OverlayEngine(configuration: EngineConfiguration()))
    }

    static let sending = MessageInput(kind: .sending, text: "Sending…")

    /// Posts `sending` at `now`.
    static func post(_ machine: inout Machine, at now: Instant, monotonic: Int64 = 0) -> Machine.Transition {
        machine.write(now: now, monotonicNow: monotonic) { engine, now in
            let applied = engine.post(sending, at: now)
            return Applied((), changes: applied.changes)
        }.1
    }

    /// A new version with nobody reading and nothing published leaves nothing to do; with a
    /// stream listed under the channel, its streams are sent the new version.
    @Test func aNewVersionGoesToTheReadersThereAre() {
        var machine = Self.machine()
        #expect(Self.did(Self.post(&machine, at: .zero)).isEmpty)
        #expect(machine.engine.version == 1)
        machine.streamCount = 1
        #expect(Self.did(Self.post(&machine, at: .zero)) == [.notify(version: 2, waiters: [])])
        machine.streamCount = 0
        #expect(Self.did(Self.post(&machine, at: .zero)).isEmpty)
        var published = Self.machine(publishes: true)
        #expect(Self.did(Self.post(&published, at: .zero)) == [.notify(version: 1, waiters: [])])
    }

    /// A record is built only when something changed and only with a store; the sequence the
    /// store gave is the channel's latest from then on.
    @Test func recordsOfChanges() {
        var ephemeral = Self.machine()
        #expect(Self.post(&ephemeral, at: .zero).record == nil)
        var stored = Self.machine(stores: true)
        let record = Self.post(&stored, at: .zero).record
        #expect(record?.state.version == 1)
        #expect(record?.messages.map(\.id) == [1])
        stored.recordSubmitted(41)
        #expect(stored.lastSequence == 41)
        // A look that changes nothing records nothing.
        let (_, looked) = stored.read(now: .zero, monotonicNow: 0) { (engine, _) throws(Never) in engine.version }
        #expect(looked.record == nil)
        #expect(stored.lastSequence == 41)
    }

    /// A long-poll on the current version parks and hands the scheduler its deadline; a later
    /// deadline changes nothing there, an earlier one is handed over under a newer generation.
    @Test func waitersParkAndScheduleTheEarliestDeadline() {
        var machine = Self.machine()
        let (first, firstDid) = machine.join(Reader("a"), since: 0, deadline: 5_000, now: .zero, monotonicNow: 0)
        guard case .parked = first else { Issue.record("not parked: \(first)"); return }
        #expect(Self.did(firstDid) == [.scheduleWaiters(5_000, generation: 1)])
        let (_, later) = machine.join(Reader("b"), since: 0, deadline: 9_000, now: .zero, monotonicNow: 0)
        #expect(Self.did(later).isEmpty)
        let (_, earlier) = machine.join(Reader("c"), since: 0, deadline: 2_000, now: .zero, monotonicNow: 0)
        #expect(Self.did(earlier) == [.scheduleWaiters(2_000, generation: 2)])
        #expect(machine.waitingCount == 3)
    }

    /// A long-poll whose version is already behind is answered at once and parks nothing.
    @Test func aWaiterBehindIsAnsweredAtOnce() {
        var machine = Self.machine()
        _ = Self.post(&machine, at: .zero)
        let (join, did) = machine.join(Reader("a"), since: 0, deadline: 5_000, now: .zero, monotonicNow: 0)
        guard case .answer(let overlay) = join else { Issue.record("not answered: \(join)"); return }
        #expect(overlay.version == 1)
        #expect(Self.did(did).isEmpty)
        #expect(machine.waiters.isEmpty)
    }

    /// A new version answers every waiter, and the waiters' timer is cancelled.
    @Test func aNewVersionAnswersEveryWaiter() {
        var machine = Self.machine()
        _ = machine.join(Reader("a"), since: 0, deadline: 5_000, now: .zero, monotonicNow: 0)
        _ = machine.join(Reader("b"), since: 0, deadline: 6_000, now: .zero, monotonicNow: 0)
        #expect(
            Self.did(Self.post(&machine, at: .zero)) == [
                .notify(version: 1, waiters: ["a", "b"]), .scheduleWaiters(nil, generation: 2),
            ])
        #expect(machine.waiters.isEmpty)
    }

    /// Once the earliest waiter deadline is due, every waiter due gets 304 with the version it
    /// has, and the next deadline is handed over; before that no waiter is looked at.
    @Test func dueWaitersExpire() {
        var machine = Self.machine()
        _ = machine.join(Reader("a"), since: 0, deadline: 1_000, now: .zero, monotonicNow: 0)
        _ = machine.join(Reader("b"), since: 0, deadline: 3_000, now: .zero, monotonicNow: 0)
        _ = machine.join(Reader("c"), since: 0, deadline: 1_000, now: .zero, monotonicNow: 0)
        #expect(Self.did(machine.timeReached(now: .zero, monotonicNow: 999)).isEmpty)
        #expect(
            Self.did(machine.timeReached(now: .zero, monotonicNow: 1_000)) == [
                .expire(version: 0, waiters: ["a", "c"]), .scheduleWaiters(3_000, generation: 2),
            ])
        #expect(
            Self.did(machine.timeReached(now: .zero, monotonicNow: 3_500)) == [
                .expire(version: 0, waiters: ["b"]), .scheduleWaiters(nil, generation: 3),
            ])
    }

    /// A waiter that joins as a deadline makes the very version it names is parked, not answered
    /// with what it has.
    @Test func aWaiterOnTheVersionADeadlineMakesParks() throws {
        var machine = Self.machine()
        _ = Self.post(&machine, at: .zero)
        let deadline = try #require(machine.engine.nextDeadline)
        // The version the deadline will make: the slide-in's end moves the phase on.
        var ahead = machine.engine
        _ = ahead.advance(to: deadline)
        let (join, _) = machine.join(
            Reader("a"), since: ahead.version, deadline: 5_000, now: deadline, monotonicNow: 0)
        guard case .parked = join else { Issue.record("not parked: \(join)"); return }
        #expect(machine.engine.version == ahead.version)
    }

    /// With the real clock the engine's next deadline is handed over, but only when it is earlier
    /// than the one held; its firing clears it so the next is handed over, and a stale firing does
    /// not.
    @Test func engineDeadlinesWithTheRealClock() throws {
        var machine = Self.machine(clock: .real)
        let posted = Self.did(Self.post(&machine, at: .zero))
        let first = try #require(machine.engine.nextDeadline)
        #expect(posted == [.scheduleEngine(first, generation: 1)])
        // Later writes that leave the deadline where it is, or later, hand over nothing.
        #expect(Self.did(Self.post(&machine, at: Instant(nanoseconds: 1))).isEmpty)
        // A stale firing (an older generation) keeps the held deadline: nothing new is handed over.
        #expect(Self.did(machine.deadlineReached(generation: 0, now: Instant(nanoseconds: 2), monotonicNow: 0)).isEmpty)
        let second = try #require(machine.engine.nextDeadline)
        let fired = Self.did(machine.deadlineReached(generation: 1, now: first, monotonicNow: 0))
        let next = try #require(machine.engine.nextDeadline)
        #expect(second >= first)
        #expect(fired == [.scheduleEngine(next, generation: 2)])
    }

    /// With the manual clock nothing is ever scheduled for the engine: `POST /clock` moves it.
    @Test func noEngineDeadlinesWithTheManualClock() {
        var machine = Self.machine(clock: .manual)
        #expect(Self.did(Self.post(&machine, at: .zero)).isEmpty)
        #expect(machine.engine.nextDeadline != nil)
    }

    /// A stream that has seen the current version gets nothing at once; any other gets the
    /// current overlay.
    @Test func subscriptions() {
        var machine = Self.machine()
        _ = Self.post(&machine, at: .zero)
        guard case (.subscribed(let none), _) = machine.subscribe(lastEventID: 1, now: .zero, monotonicNow: 0),
            case (.subscribed(let current), _) = machine.subscribe(lastEventID: 0, now: .zero, monotonicNow: 0),
            case (.subscribed(let fresh), _) = machine.subscribe(lastEventID: nil, now: .zero, monotonicNow: 0)
        else {
            Issue.record("not subscribed")
            return
        }
        #expect(none == nil)
        #expect(current?.version == 1)
        #expect(fresh?.version == 1)
    }

    /// A channel is retired only once nobody reads it (no waiter waiting, no stream listed), and
    /// then takes no reader.
    @Test func retirement() {
        var machine = Self.machine()
        let reader = Reader("a")
        _ = machine.join(reader, since: 0, deadline: 5_000, now: .zero, monotonicNow: 0)
        let retiredWhileWaiting = machine.retireIfUnread()
        #expect(!retiredWhileWaiting)
        reader.hasResponded = true
        #expect(machine.waitingCount == 0)
        machine.streamCount = 1
        let retiredWhileStreamed = machine.retireIfUnread()
        #expect(!retiredWhileStreamed && !machine.isIdle)
        machine.streamCount = 0
        let retiredOnceAnswered = machine.retireIfUnread()
        #expect(retiredOnceAnswered)
        guard case (.retired, _) = machine.join(Reader("b"), since: 0, deadline: 1, now: .zero, monotonicNow: 0),
            case (.retired, _) = machine.subscribe(lastEventID: nil, now: .zero, monotonicNow: 0)
        else {
            Issue.record("a retired channel took a reader")
            return
        }
    }

    /// Reads between deadlines: the machine says 304 for the current version, else current; once
    /// a deadline is due the read must go through an event.
    @Test func overlayReads() throws {
        var machine = Self.machine(clock: .real)
        #expect(machine.readOverlay(unlessVersion: 0, now: .zero) == .notModified(version: 0))
        #expect(machine.readOverlay(unlessVersion: nil, now: .zero) == .current(version: 0))
        _ = Self.post(&machine, at: .zero)
        #expect(machine.readOverlay(unlessVersion: 0, now: .zero) == .current(version: 1))
        let deadline = try #require(machine.engine.nextDeadline)
        #expect(machine.readOverlay(unlessVersion: nil, now: deadline) == .deadlinePassed)
        #expect(machine.readOverlay(unlessVersion: 1, now: deadline) == .deadlinePassed)
    }

    /// The channel's read cache: the version's template encoded once and filled in, an answer
    /// kept and sent again within the real clock's window of a millisecond, filled in again past it,
    /// and a new template once the version moves.
    @Test func overlayReadCache() throws {
        var guarded = ChannelState(machine: Self.machine(clock: .real))
        let encoder = OverlayEncoder(streamBufferBytes: 1 << 16)
        guard
            case .fill(let kept, let values, let at) = guarded.currentRead(now: .zero, clock: .real, encoder: encoder)
        else {
            Issue.record("not filled in")
            return
        }
        #expect(kept.template.version == 0)
        #expect(kept.response(values).body == encoder.body(guarded.machine.engine.overlay(at: .zero)))
        guarded.reads.keep(OverlayReads.Shared(version: 0, at: at, response: HTTPResponse(status: 200)), current: 0)
        guard
            case .shared = guarded.currentRead(now: Instant(nanoseconds: 999_999), clock: .real, encoder: encoder)
        else {
            Issue.record("not shared within the window")
            return
        }
        guard
            case .fill(let same, _, _) = guarded.currentRead(
                now: Instant(nanoseconds: 1_000_000), clock: .real, encoder: encoder)
        else {
            Issue.record("shared past the window")
            return
        }
        #expect(same === kept)
        _ = Self.post(&guarded.machine, at: .zero)
        guard case .fill(let next, _, _) = guarded.currentRead(now: .zero, clock: .real, encoder: encoder)
        else {
            Issue.record("not filled in after a change")
            return
        }
        #expect(next.template.version == 1)
        // An answer of an older version is not kept.
        guarded.reads.keep(OverlayReads.Shared(version: 0, at: .zero, response: HTTPResponse(status: 200)), current: 1)
        guard case .fill = guarded.currentRead(now: .zero, clock: .real, encoder: encoder) else {
            Issue.record("an old version's answer was kept")
            return
        }
    }

    /// A failed commit takes the engine back to what is stored (here nothing: a new channel),
    /// under a version beyond every one served and with no id given again.
    @Test func aFailedCommitGoesBack() {
        var machine = Self.machine(stores: true)
        _ = Self.post(&machine, at: .zero)
        machine.recordSubmitted(7)
        let nextID = machine.engine.nextID
        let transition = machine.commitFailed(stored: nil, now: .zero, monotonicNow: 0)
        #expect(machine.engine.version == 2)
        #expect(machine.engine.nextID == nextID)
        #expect(machine.engine.liveMessages.isEmpty)
        #expect(machine.lastSequence == nil)
        #expect(transition.record == nil)
    }

    /// Stopping hands out every waiter; the waiters leave the channel.
    @Test func release() {
        var machine = Self.machine()
        _ = machine.join(Reader("a"), since: 0, deadline: 5_000, now: .zero, monotonicNow: 0)
        #expect(machine.release().map(\.reader.description) == ["a"])
        #expect(machine.waiters.isEmpty)
    }
}
