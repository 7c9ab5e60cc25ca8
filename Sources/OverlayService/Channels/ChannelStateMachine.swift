import OverlayEngine
import OverlayStore

/// A reader a channel parks: a long-poll, answered once.
protocol ParkedReader {
    /// Whether it has its answer (or its client went away and the sweep answered it).
    var hasResponded: Bool { get }
}

/// Everything a channel holds behind its lock, as a value: the engine, the readers waiting for
/// its next version, what the scheduler was told, and the read caches. Its event streams are the
/// server's `StreamRegistry`'s, under the channel's group; the machine is told how many there are
/// (`streamCount`) and decides as that count says.
///
/// Each event takes the current time as an argument (the overlay's clock and the monotonic one
/// for wall-clock waits) and returns what the driver must do, as `Action`s to run after the lock
/// is released, plus the record a store must take under the lock. It calls nothing and reads no
/// clock, so every rule here is tested without sockets or threads (ChannelStateMachineTests).
///
/// Generic over the reader only so that tests park plain objects; `Channel` specialises it to
/// libmicrohttpd's responders.
struct ChannelStateMachine<Reader: ParkedReader> {
    /// A long-poll parked until the version moves or its time is up.
    struct Waiter {
        /// Monotonic nanoseconds after which the waiter gets 304.
        var deadline: Int64
        var reader: Reader
    }

    /// What the driver does once the lock is released.
    enum Action {
        /// A new version: offered to the publisher, sent to every waiter and to the channel's
        /// streams (which also hear of a reader's tap that came with it).
        case notify(OverlaySnapshot, waiters: [Waiter], tap: MessageTap?)
        /// Waiters whose time is up: 304 with `version`, which they already have.
        case expire(version: UInt64, waiters: [Waiter])
        /// The engine's next deadline for the scheduler (nil: none), in engine time.
        case scheduleEngine(at: Instant?, generation: UInt64)
        /// The earliest waiter deadline for the scheduler (nil: none), in monotonic nanoseconds.
        case scheduleWaiters(at: Int64?, generation: UInt64)
    }

    /// What an event leaves: the record of its changes (to submit under the lock, so that one
    /// channel's records reach the store in the order they happened) and the actions.
    struct Transition {
        var record: ChannelRecord?
        var actions: [Action] = []
    }

    /// How the machine was set up: the parts of the service that decide what an event leaves.
    struct Setting {
        var name: String
        var clock: ClockMode
        /// Whether changes are stored: without a store no record is built.
        var stores: Bool
        /// Whether every new version is published, read or not.
        var publishes: Bool
        /// The device profiles by name, to read a stored device back after a failed commit.
        var devices: [String: DeviceProfile] = [:]
        /// Where what the channel's messages hold is counted (`limits.maxMemoryBytes`).
        var memory: MemoryAccount? = nil
    }

    let setting: Setting
    private(set) var engine: OverlayEngine
    /// What the engine's messages cost (`MessageMemory`) when last counted into `setting.memory`.
    private var counted = 0
    private(set) var waiters: [Waiter] = []
    /// How many event streams the registry lists under the channel: an input, which the driver
    /// reads before each event as it reads the time (only whether there are any is decided on).
    /// An event that goes by an older reading misses no stream: a subscription is an event of its
    /// own, after its stream is listed, and reads the version it sends.
    var streamCount = 0
    /// The engine deadline the scheduler holds (nil once it fired): only an earlier one is handed
    /// over, so a stream of writes that each move it later costs no scheduling.
    private(set) var engineTimer: Instant?
    /// The waiter deadline last handed to the scheduler.
    private(set) var waitersTimer: Int64?
    /// Stamps every handover, so that the scheduler keeps the newest of two that race there.
    private var generation: UInt64 = 0
    /// The generation of the engine deadline the scheduler holds, to tell its firing from a stale one.
    private var engineTimerGeneration: UInt64 = 0
    /// The store sequence of this channel's latest record.
    private(set) var lastSequence: UInt64?
    /// Let go by the registry (a channel only readers made, whose readers all left): no reader
    /// may join it any more; one that tries asks the registry again.
    private(set) var retired = false
    /// Deleted (`DELETE /channels/{name}`, or retired for idleness): the registry no longer holds
    /// it, and nothing more of it is stored, so that a write that raced the deletion cannot bring
    /// its rows back.
    private(set) var deleted = false

    /// A machine around `engine`. `restarted` are the changes of a restart, whose record the
    /// store takes first, with the whole state of the channel.
    init(_ setting: Setting, engine: OverlayEngine, restarted: Changes? = nil) {
        self.setting = setting
        self.engine = engine
        if let memory = setting.memory {
            counted = MessageMemory.bytes(of: engine)
            memory.add(counted)
        }
        initialRecord =
            setting.stores ? restarted.map { ChannelRecord(name: setting.name, engine: engine, changes: $0) } : nil
    }

    /// The record of a restart, for the driver to store before anything else.
    private(set) var initialRecord: ChannelRecord?

    // MARK: - Events

    /// An event on the engine at `now`, after every deadline up to `now`.
    mutating func write<T>(
        now: Instant, monotonicNow: Int64, _ event: (inout OverlayEngine, Instant) -> Applied<T>
    ) -> (T, Transition) {
        let before = Before(self)
        var changes = engine.advance(to: now)
        let applied = event(&engine, now)
        changes.merge(applied.changes)
        return (applied.value, conclude(before, changes, now, monotonicNow))
    }

    /// A look at the engine at `now`, after every deadline up to `now`.
    mutating func read<T, E: Error>(
        now: Instant, monotonicNow: Int64, _ body: (OverlayEngine, Instant) throws(E) -> T
    ) -> (Result<T, E>, Transition) {
        let before = Before(self)
        let changes = engine.advance(to: now)
        let result: Result<T, E>
        do throws(E) { result = .success(try body(engine, now)) } catch { result = .failure(error) }
        return (result, conclude(before, changes, now, monotonicNow))
    }

    /// Time has come (a waiter timer, the manual clock): every deadline up to `now` is reached.
    mutating func timeReached(now: Instant, monotonicNow: Int64) -> Transition {
        read(now: now, monotonicNow: monotonicNow) { (_, _) throws(Never) in () }.1
    }

    /// The scheduler fired the engine deadline of `generation`. A stale firing (the deadline was
    /// replaced meanwhile) leaves the held one alone; either way time is reached.
    mutating func deadlineReached(generation fired: UInt64, now: Instant, monotonicNow: Int64) -> Transition {
        // The scheduler forgot the deadline when it fired: so does the machine, so that the next
        // one is handed over even if it is the same instant.
        if fired == engineTimerGeneration { engineTimer = nil }
        return timeReached(now: now, monotonicNow: monotonicNow)
    }

    /// What became of a long-poll that asked to wait.
    enum Join {
        /// The channel was let go: ask the registry again.
        case retired
        /// The version already differs from `since`: answer with this overlay now.
        case answer(OverlaySnapshot)
        case parked
    }

    /// A long-poll waiting for a version other than `since`, until `deadline` (monotonic).
    mutating func join(
        _ reader: Reader, since: UInt64, deadline: Int64, now: Instant, monotonicNow: Int64
    ) -> (Join, Transition) {
        guard !retired else { return (.retired, Transition()) }
        let before = Before(self)
        var transition = conclude(before, engine.advance(to: now), now, monotonicNow)
        guard engine.version == since else { return (.answer(engine.overlay(at: now)), transition) }
        // Parked after the deadlines are reached: a version they made is one it has seen.
        let joining = Before(self)
        waiters.append(Waiter(deadline: deadline, reader: reader))
        transition.actions += conclude(joining, Changes(), now, monotonicNow).actions
        return (.parked, transition)
    }

    /// What became of an event stream that asked to subscribe.
    enum Subscription {
        case retired
        /// `current` is the overlay to send it first (nil when its `Last-Event-ID` is the current
        /// version).
        case subscribed(current: OverlaySnapshot?)
    }

    /// An event stream from now on, listed under the channel (and counted in `streamCount`)
    /// before this event: every version after the one this reads reaches it by the fan-out.
    mutating func subscribe(
        lastEventID: UInt64?, now: Instant, monotonicNow: Int64
    ) -> (Subscription, Transition) {
        guard !retired else { return (.retired, Transition()) }
        let before = Before(self)
        let changes = engine.advance(to: now)
        // An id that is not the current version (older, or from before a restart of an
        // ephemeral server) gets the current overlay at once.
        let upToDate = engine.version == lastEventID
        let subscription = Subscription.subscribed(current: upToDate ? nil : engine.overlay(at: now))
        return (subscription, conclude(before, changes, now, monotonicNow))
    }

    /// A commit of this channel's changes failed. The engine goes back to what the database holds
    /// (`stored`; nil: nothing, the channel was new), under a version beyond every one served and
    /// with no id given again, then reaches `now`.
    mutating func commitFailed(stored: LoadedChannel?, now: Instant, monotonicNow: Int64) -> Transition {
        let before = Before(self)
        let configuration = engine.configuration
        var restored =
            stored.map {
                OverlayEngine.exactly(
                    configuration: configuration, state: $0.state, live: $0.live, history: $0.history,
                    devices: setting.devices)
            } ?? OverlayEngine(configuration: configuration, now: now, version: before.version)
        restored.continueAfter(version: before.version, nextID: engine.nextID)
        restored.continueAnnouncement(after: engine)
        engine = restored
        recount()
        lastSequence = nil
        return conclude(before, engine.advance(to: now), now, monotonicNow)
    }

    /// The store took this event's record under `sequence`.
    mutating func recordSubmitted(_ sequence: UInt64) {
        lastSequence = sequence
        initialRecord = nil
    }

    /// The server is stopping: every waiter, handed out (they leave the channel). The driver ends
    /// the channel's streams.
    mutating func release() -> [Waiter] {
        defer { waiters = [] }
        return waiters
    }

    /// The channel is deleted: no reader may join it, and every waiter is handed out to be ended
    /// (the driver ends the streams). With a store, the record that removes its rows, for the
    /// driver to submit.
    mutating func delete() -> (waiters: [Waiter], record: ChannelRecord?) {
        retired = true
        deleted = true
        setting.memory?.add(-counted)
        counted = 0
        var record: ChannelRecord?
        if setting.stores {
            record = ChannelRecord(name: setting.name, engine: engine, changes: Changes())
            record?.removed = true
        }
        return (release(), record)
    }

    /// Whether the channel holds nothing and nobody reads it: no message shown, queued or
    /// scheduled, no stream, no waiter. What `channelIdleSeconds` retires once it lasts.
    var isIdle: Bool {
        engine.phase == .hidden && engine.current == nil && engine.queue.isEmpty
            && engine.scheduledMessages.isEmpty && streamCount == 0 && waitingCount == 0
    }

    /// Deletes the channel if it is idle and still at `version` (nothing has happened since it
    /// was found idle): as `delete`, or nil.
    mutating func deleteIfIdle(at version: UInt64) -> (waiters: [Waiter], record: ChannelRecord?)? {
        guard !deleted, isIdle, engine.version == version else { return nil }
        return delete()
    }

    /// Retires the channel if nobody reads it (no stream, no waiter still waiting); whether it did.
    mutating func retireIfUnread() -> Bool {
        guard streamCount == 0, waiters.allSatisfy({ $0.reader.hasResponded }) else { return false }
        retired = true
        return true
    }

    /// Waiters still waiting (one whose client went away has been answered by the sweep).
    var waitingCount: Int { waiters.count { !$0.reader.hasResponded } }
}
extension ChannelStateMachine {
    /// What the end of an event compares with: the version and the waiters before it.
    struct Before {
        var version: UInt64
        var waiters: Int

        init(_ machine: ChannelStateMachine) {
            version = machine.engine.version
            waiters = machine.waiters.count
        }
    }

    /// Brings the account up to what the engine holds now: constant time, whatever it holds.
    private mutating func recount() {
        guard let memory = setting.memory else { return }
        let now = MessageMemory.bytes(of: engine)
        memory.add(now - counted)
        counted = now
    }

    /// The end of every event: the changes become a record, a new version goes to the readers,
    /// due waiters get 304, and deadlines that moved go to the scheduler.
    @inline(__always)
    private mutating func conclude(
        _ before: Before, _ changes: Changes, _ now: Instant, _ monotonicNow: Int64
    ) -> Transition {
        var transition = Transition()
        if !changes.isEmpty { recount() }
        if setting.stores, !changes.isEmpty {
            transition.record = ChannelRecord(name: setting.name, engine: engine, changes: changes)
        }
        var waitersChanged = waiters.count != before.waiters
        // Waiters only join in an event; any that left make the earliest deadline a full scan.
        var waitersLeft = waiters.count < before.waiters
        if engine.version != before.version && (setting.publishes || streamCount > 0 || !waiters.isEmpty) {
            // Moved out, not copied: the array's storage goes to the fan-out as it is.
            let answered = waiters
            waiters = []
            if !answered.isEmpty {
                waitersChanged = true
                waitersLeft = true
            }
            transition.actions.append(.notify(engine.overlay(at: now), waiters: answered, tap: changes.tapped))
        }
        // Waiters are only scanned once the earliest of them is due, not on every event.
        if let earliest = waitersTimer, earliest <= monotonicNow {
            let expired = waiters.filter { $0.deadline <= monotonicNow }
            waiters.removeAll { $0.deadline <= monotonicNow }
            if !expired.isEmpty { transition.actions.append(.expire(version: engine.version, waiters: expired)) }
            waitersChanged = true
            waitersLeft = true
        }
        if waitersChanged {
            let next = nextWaiterDeadline(joinedFrom: waitersLeft ? nil : before.waiters)
            if next != waitersTimer {
                waitersTimer = next
                transition.actions.append(.scheduleWaiters(at: next, generation: nextGeneration()))
            }
        }
        // Only a deadline earlier than the one the scheduler holds is handed over. A later one
        // (each immediate POST moves the shown message's end later) waits for the held one to
        // fire: that firing reaches nothing, forgets it (`deadlineReached`), and hands over the
        // next. So a stream of writes costs at most one early wake-up per deadline that moved.
        if setting.clock == .real, let next = engine.nextDeadline, engineTimer.map({ next < $0 }) ?? true {
            engineTimer = next
            engineTimerGeneration = nextGeneration()
            transition.actions.append(.scheduleEngine(at: next, generation: engineTimerGeneration))
        }
        return transition
    }

    /// The earliest waiter deadline. When waiters only joined (from index `joinedFrom` on), the
    /// newcomers are compared with the earliest so far: a join costs a step, not a scan of every
    /// waiter, which would make parking a fan-out's thousands quadratic.
    private func nextWaiterDeadline(joinedFrom: Int?) -> Int64? {
        guard let joinedFrom else { return waiters.lazy.map(\.deadline).min() }
        let joined = waiters[joinedFrom...].lazy.map(\.deadline).min()
        switch (waitersTimer, joined) {
        case (let earliest?, let newcomer?): return min(earliest, newcomer)
        case (let earliest, let newcomer): return earliest ?? newcomer
        }
    }

    private mutating func nextGeneration() -> UInt64 {
        generation += 1
        return generation
    }
}

extension ChannelStateMachine: Sendable where Reader: Sendable {}
extension ChannelStateMachine.Waiter: Sendable where Reader: Sendable {}
extension ChannelStateMachine.Action: Sendable where Reader: Sendable {}
extension ChannelStateMachine.Transition: Sendable where Reader: Sendable {}
extension ChannelStateMachine.Join: Sendable where Reader: Sendable {}
extension ChannelStateMachine.Subscription: Sendable where Reader: Sendable {}
