import MicroHTTP
import OverlayEngine
import OverlayPublisher
import OverlayStore
import Platform

/// One overlay: a `ChannelStateMachine` behind a lock, and the driver that runs what its events
/// leave to do.
///
/// Every event reads the time under the lock (so time never runs backwards between callers),
/// runs on the machine, hands the record of its changes to the store (under the lock: the store's
/// order is the channel's, and a write is answered with the record's sequence), and releases the
/// lock. Only then are its actions run: readers answered with the overlay encoded once for all of
/// them, the version published, deadlines handed to the scheduler.
///
/// Its event streams are listed in the service's `StreamRegistry` under the channel's group, not
/// in the machine: the registry takes a stream off when its connection ends.
final class Channel: Sendable {
    typealias Machine = ChannelStateMachine<WaitingReader>

    let name: String
    private let number: Int
    private let clock: ServiceClock
    private let scheduler: DeadlineScheduler
    private let encoder: OverlayEncoder
    private let store: OverlayStore?
    /// Where every new version goes when publishing is configured.
    private let publisher: Publisher<OverlaySnapshot>?
    /// The machine and, beside it under the same lock, what reads of the overlay keep.
    private let state: Lock<ChannelState<WaitingReader>>
    /// Where the channel's event streams are listed (the server's registry), and their group there.
    private let streams: StreamRegistry
    private let group = StreamGroup()
    /// The page of `GET /messages` built last (see `PageCache`).
    let pages = PageCache()
    /// The version the channel was made with: what a read of it showed before it existed stands
    /// for this one (see `OverlayHandlers.overlay`).
    let firstVersion: UInt64

    /// A channel with `engine`. `restarted` are the changes of a restart (a channel read back
    /// from the store): they are stored at once, with the whole state of the channel, so that
    /// from then on the store holds this run's state of it (what a failed commit goes back to).
    init(
        name: String, number: Int, engine: OverlayEngine, restarted: Changes? = nil, clock: ServiceClock,
        scheduler: DeadlineScheduler, encoder: OverlayEncoder, store: OverlayStore?, streams: StreamRegistry,
        publisher: Publisher<OverlaySnapshot>? = nil, devices: [String: DeviceProfile] = [:],
        memory: MemoryAccount? = nil
    ) {
        self.name = name
        self.streams = streams
        self.number = number
        self.clock = clock
        self.scheduler = scheduler
        self.encoder = encoder
        self.store = store
        self.publisher = publisher
        firstVersion = engine.version
        let setting = Machine.Setting(
            name: name, clock: clock.mode, stores: store != nil, publishes: publisher != nil, devices: devices,
            memory: memory)
        var machine = Machine(setting, engine: engine, restarted: restarted)
        if let store, let record = machine.initialRecord { machine.recordSubmitted(store.submit(record)) }
        self.state = Lock(ChannelState(machine: machine))
    }

    /// Reads the engine at the current time (deadlines up to now reached).
    func withEngine<T: Sendable>(_ body: (OverlayEngine, Instant) throws(APIError) -> T) throws(APIError) -> T {
        try transact { machine, now, monotonicNow in machine.read(now: now, monotonicNow: monotonicNow, body) }
            .value.get()
    }

    /// Runs an event on the engine at the current time and stores what it changed: its answer,
    /// and the store sequence that holds it (nil when nothing is stored), to answer once it is
    /// durable. A write that changed nothing (a retried keyed POST, a PATCH to the same values)
    /// answers with what earlier writes made, which may not be on disk yet: it gets the channel's
    /// latest sequence, so that it too is answered only once that is durable (or 503 if that
    /// commit failed).
    func write<T: Sendable>(
        _ event: (inout OverlayEngine, Instant) -> Applied<T>
    ) -> (value: T, sequence: UInt64?) {
        transact { machine, now, monotonicNow in machine.write(now: now, monotonicNow: monotonicNow, event) }
    }

    /// `write`, unless the channel has been deleted (nil): a writer that found it in the registry
    /// before the deletion asks the registry again, and so writes to the channel that replaces it.
    func writeIfLive<T: Sendable>(
        _ event: (inout OverlayEngine, Instant) -> Applied<T>
    ) -> (value: T, sequence: UInt64?)? {
        var deleted = false
        let (value, sequence) = transact { machine, now, monotonicNow -> (T?, Machine.Transition) in
            guard !machine.deleted else {
                deleted = true
                return (nil, Machine.Transition())
            }
            let (value, transition) = machine.write(now: now, monotonicNow: monotonicNow, event)
            return (value, transition)
        }
        guard !deleted, let value else { return nil }
        return (value, sequence)
    }

    /// Reaches every deadline up to now; the waiters' timer and the manual clock call this.
    func advanceToNow() {
        transact { machine, now, monotonicNow in ((), machine.timeReached(now: now, monotonicNow: monotonicNow)) }
    }

    /// A commit of this channel's changes failed: nothing of them is on disk. The channel goes
    /// back to what the database holds (`stored`, read on the store's writer thread), every change
    /// not yet committed with it (its records are taken out of the store's queue, and their
    /// writers answered 503), then reaches the current time again. Readers get that state at once
    /// under a new version, beyond every one they may have seen; no id given before is given again.
    func rollBack(stored: () throws(StoreError) -> LoadedChannel?) {
        guard let store else { return }
        // Read before the lock: this runs on the store's writer thread, which commits nothing
        // meanwhile, so what the database holds is still what it read when the lock is taken.
        let image: LoadedChannel?
        do {
            image = try stored()
        } catch {
            withMachine { _ in store.discardPending(channel: name) }
            Diagnostics.write("overlayd: channel \(name) keeps changes that are not stored: \(error)\n")
            return
        }
        // Under the lock from the discard to the new state, so that no record of the old one
        // reaches the store in between.
        let actions = withMachine { machine -> [Machine.Action] in
            store.discardPending(channel: name)
            let monotonicNow = MonotonicClock.nanoseconds()
            let transition = machine.commitFailed(
                stored: image, now: clock.now(monotonic: monotonicNow), monotonicNow: monotonicNow)
            if let record = transition.record { machine.recordSubmitted(store.submit(record)) }
            return transition.actions
        }
        run(actions)
    }

    // MARK: - Reading

    /// `GET /overlay`: 304 when `unlessVersion` is the current version, else the overlay now,
    /// filled into the version's template.
    func overlayResponse(unlessVersion: UInt64?) -> HTTPResponse {
        // One lock: a read between deadlines only looks; one past a deadline is an event, whose
        // record is stored and whose actions (readers answered, the version published) run.
        // What a passed deadline left goes beside the answer (nil then): in the answer, it would
        // make every read copy and destroy its size.
        var reached: (overlay: OverlaySnapshot, actions: [Machine.Action])?
        let answer = state.withLock { state -> OverlayReads.Read? in
            let now = clock.now()
            switch state.machine.readOverlay(unlessVersion: unlessVersion, now: now) {
            case .deadlinePassed:
                let monotonicNow = MonotonicClock.nanoseconds()
                let (overlay, transition) = state.machine.read(
                    now: clock.now(monotonic: monotonicNow), monotonicNow: monotonicNow
                ) { (engine, now) throws(Never) in engine.overlay(at: now) }
                submit(transition, of: &state.machine)
                reached = (overlay.get(), transition.actions)
                return nil
            case .notModified(let version):
                let kept = state.reads.kept
                return .notModified(version: version, kept?.template.version == version ? kept : nil)
            case .current:
                return state.currentRead(now: now, clock: clock.mode, encoder: encoder)
            }
        }
        guard let answer else {
            // The read was the event that reached a deadline, and left the overlay then.
            let (overlay, actions) = reached!
            run(actions)
            return overlay.version == unlessVersion
                ? encoder.notModified(version: overlay.version) : encoder.response(overlay)
        }
        switch answer {
        case .notModified(let version, let kept):
            return kept?.notModified ?? encoder.notModified(version: version)
        case .shared(let response):
            return response
        case .fill(let kept, let values, let now):
            // Filled in outside the lock, then kept for the reads that follow.
            var response = kept.response(values)
            response.prepare()
            let shared = OverlayReads.Shared(version: kept.template.version, at: now, response: response)
            state.withLock { $0.reads.keep(shared, current: $0.machine.engine.version) }
            return response
        }
    }

    // MARK: - Long-poll

    /// Answers `responder` with the overlay as soon as its version differs from `since`: now if it
    /// already does, else at the next change, or with 304 once `seconds` of wall-clock time pass.
    /// Returns false, answering nothing, if the channel has been retired (see `retireIfUnread`).
    func wait(since: UInt64, seconds: Double, responder: any HTTPAnswering) -> Bool {
        let deadline = MonotonicClock.nanoseconds() + Int64(seconds * 1e9)
        let (join, _) = transact { machine, now, monotonicNow in
            machine.join(
                WaitingReader(responder: responder), since: since, deadline: deadline, now: now,
                monotonicNow: monotonicNow)
        }
        switch join {
        case .retired: return false
        case .answer(let overlay): responder.respond(encoder.response(overlay))
        case .parked: break
        }
        return true
    }

    // MARK: - Server-Sent Events

    /// Adds an event stream. It receives the current overlay at once unless `lastEventID` is the
    /// current version (a reconnecting client that has seen it), then every new version.
    /// Returns false, subscribing nothing, if the channel has been retired (see `retireIfUnread`).
    func subscribe(_ stream: HTTPStream, lastEventID: UInt64?) -> Bool {
        // A client that has the current version is not sent it again, even by its fan-out racing
        // this subscription.
        if let lastEventID, withMachine({ $0.engine.version }) == lastEventID { stream.skip(through: lastEventID) }
        // Listed before the version is read: every version after this read reaches the stream by
        // its fan-out, this one is sent below, and a stream sends no version older than one it
        // was sent (`HTTPStream.send(_:number:limit:)`), whichever comes first.
        guard streams.list(stream, in: group) else { return true }
        let (subscription, _) = transact { machine, now, monotonicNow in
            machine.subscribe(lastEventID: lastEventID, now: now, monotonicNow: monotonicNow)
        }
        guard case .subscribed(let current) = subscription else { return false }
        if let current {
            stream.send(encoder.event(current), number: current.version, limit: encoder.streamBufferBytes)
        }
        return true
    }

    /// Retires the channel if nobody reads it (no event stream, no long-poll still waiting):
    /// from then on it takes no reader. The registry's sweep of channels only readers made.
    func retireIfUnread() -> Bool {
        withMachine { $0.retireIfUnread() }
    }

    /// Sends `comment` to every stream, so that proxies keep them open and dead clients are found.
    func heartbeat(_ comment: [UInt8]) {
        streams.forEach(in: group) { $0.sendIfIdle(comment, limit: encoder.streamBufferBytes) }
    }

    /// The server is stopping: waiters get 503 now, streams end after what they hold.
    func releaseReaders() {
        var waiters = withMachine { $0.release() }
        waiters.answerAll(APIError.shuttingDown.response)
        streams.forEach(in: group) { $0.end() }
    }

    /// Deletes the channel: its long-polls are answered 404, its streams end, its deadlines are
    /// forgotten, and its rows are removed from the store. Returns the store sequence of the
    /// removal, to answer once it is durable. The registry lets go of it after.
    func delete() -> UInt64? {
        finishDeletion(withMachine { machine in machine.delete() })
    }

    /// Deletes the channel if it is idle and still at `version`: whether it did.
    func deleteIfIdle(at version: UInt64) -> Bool {
        guard let deleted = withMachine({ machine in machine.deleteIfIdle(at: version) }) else { return false }
        finishDeletion(deleted)
        return true
    }

    /// The channel's version if it is idle now (see `ChannelStateMachine.isIdle`), else nil.
    var idleVersion: UInt64? {
        withMachine { machine in machine.isIdle && !machine.deleted ? machine.engine.version : nil }
    }

    /// What follows a deletion, outside the lock: readers ended, timers forgotten. Called with the
    /// machine's answer and its removal record already taken; submits the record.
    @discardableResult
    private func finishDeletion(
        _ deleted: (waiters: [Machine.Waiter], record: ChannelRecord?)
    ) -> UInt64? {
        var deleted = deleted
        var sequence: UInt64?
        if let record = deleted.record, let store {
            let submitted = store.submit(record)
            withMachine { $0.recordSubmitted(submitted) }
            sequence = submitted
        }
        deleted.waiters.answerAll(APIError.notFound("channel \(name) was deleted").response)
        streams.forEach(in: group) { $0.end() }
        forgetTimers()
        return sequence
    }

    /// The channel has been let go (see `retireIfUnread`): its deadlines, and what the scheduler
    /// keeps to order their handovers, go.
    func forgetTimers() {
        scheduler.forget([.engine(channel: number), .waiters(channel: number)])
    }

    /// Event streams listed under the channel (until their connections end).
    var subscriberCount: Int { group.count }
    /// Waiters still waiting (a waiter whose client went away has been answered by the sweep).
    var waiterCount: Int { withMachine { $0.waitingCount } }

    /// Runs `body` on the machine under the lock, told first how many streams are listed under
    /// the channel (under the lock: a subscriber lists its stream before it takes the lock, so an
    /// event after its subscription counts it).
    @inline(__always)
    private func withMachine<T>(_ body: (inout Machine) throws -> T) rethrows -> T {
        try state.withLock { state in
            state.machine.streamCount = group.count
            return try body(&state.machine)
        }
    }

    // MARK: - The one path

    /// Runs `event` on the machine with the time now, under the lock, submits its record there,
    /// and runs its actions once the lock is released. Answers the event's value and the store
    /// sequence that holds it (see `write`).
    @discardableResult
    @inline(__always)
    private func transact<T>(
        _ event: (inout Machine, _ now: Instant, _ monotonicNow: Int64) -> (T, Machine.Transition)
    ) -> (value: T, sequence: UInt64?) {
        let (value, actions, sequence) = withMachine { machine in
            // One reading for both clocks.
            let monotonicNow = MonotonicClock.nanoseconds()
            let (value, transition) = event(&machine, clock.now(monotonic: monotonicNow), monotonicNow)
            submit(transition, of: &machine)
            return (value, transition.actions, machine.lastSequence)
        }
        if !actions.isEmpty { run(actions) }
        return (value, sequence)
    }

    /// Hands an event's record to the store, under the lock: one channel's records reach it in
    /// the order they happened.
    @inline(__always)
    private func submit(_ transition: borrowing Machine.Transition, of machine: inout Machine) {
        if let record = transition.record, let store, !machine.deleted {
            machine.recordSubmitted(store.submit(record))
        }
    }

    /// Runs the actions of an event, in order, each taken out of the list: a fan-out's waiters
    /// are answered from an array nothing else holds.
    private func run(_ actions: consuming [Machine.Action]) {
        var pending = actions
        pending.reverse()
        while let action = pending.popLast() {
            switch consume action {
            case .notify(let overlay, var waiters, let tap):
                publisher?.offer(channel: name, version: overlay.version, payload: overlay)
                if !waiters.isEmpty {
                    // Built once in libmicrohttpd for every waiter: thousands of long-polls cost
                    // one response, not one each.
                    var response = encoder.response(overlay)
                    response.prepare(dated: true)
                    waiters.answerAll(response)
                }
                if group.count > 0 {
                    // A tap goes in the same delivery as its version's overlay, right after it:
                    // one piece, so that no stream gets one without the other, or them apart.
                    var built = encoder.event(overlay)
                    if let tap { built += encoder.tapEvent(tap) }
                    // A constant for the walk: the closure would box a variable, and retain and
                    // release its array around each stream's send.
                    let (event, version, limit) = (built, overlay.version, encoder.streamBufferBytes)
                    streams.forEach(in: group) { $0.send(event, number: version, limit: limit) }
                }
            case .expire(let version, var waiters):
                var response = encoder.notModified(version: version)
                response.prepare(dated: true)
                waiters.answerAll(response)
            case .scheduleEngine(let deadline, let generation):
                // Strong captures: a weak one would give every channel a side table and make
                // each retain of it slower; the scheduler drops its entries when it stops.
                scheduler.schedule(
                    .engine(channel: number), at: deadline.map(clock.monotonic(at:)), generation: generation
                ) { [self] in
                    transact { machine, now, monotonicNow in
                        ((), machine.deadlineReached(generation: generation, now: now, monotonicNow: monotonicNow))
                    }
                }
            case .scheduleWaiters(let deadline, let generation):
                scheduler.schedule(.waiters(channel: number), at: deadline, generation: generation) { [self] in
                    advanceToNow()
                }
            }
        }
    }
}
