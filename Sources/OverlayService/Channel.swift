import MicroHTTP
import OverlayEngine
import OverlayPublisher
import OverlayStore
import Platform
import Synchronization

/// One overlay: an engine behind a lock, the readers waiting for its next version (long-poll),
/// and the event streams that receive every version (Server-Sent Events).
///
/// Every access goes through one path: under the lock the engine first reaches the current time
/// (read under the lock, so time never runs backwards between callers), the caller's work runs,
/// a change of version takes the waiters and lists the streams, and a deadline that moved goes to
/// the scheduler (there, so that the scheduler sees deadlines in the order they were worked out).
/// Only after the lock is released are readers answered, with the overlay encoded once for all of
/// them.
final class Channel: Sendable {
    let name: String
    private let number: Int
    private let clock: ServiceClock
    private let scheduler: DeadlineScheduler
    private let encoder: OverlayEncoder
    private let store: OverlayStore?
    /// Where every new version goes when publishing is configured.
    private let publisher: Publisher<OverlaySnapshot>?
    /// The device profiles by name, to read a stored device back.
    private let devices: [String: DeviceProfile]

    private let state: Mutex<ChannelState>

    /// A channel with `engine`. `restarted` are the changes of a restart (a channel read back
    /// from the store): they are stored at once, with the whole state of the channel, so that
    /// from then on the store holds this run's state of it (what a failed commit goes back to).
    init(
        name: String, number: Int, engine: OverlayEngine, restarted: Changes? = nil, clock: ServiceClock,
        scheduler: DeadlineScheduler, encoder: OverlayEncoder, store: OverlayStore?,
        publisher: Publisher<OverlaySnapshot>? = nil, devices: [String: DeviceProfile] = [:]
    ) {
        self.name = name
        self.number = number
        self.clock = clock
        self.scheduler = scheduler
        self.encoder = encoder
        self.store = store
        self.publisher = publisher
        self.devices = devices
        var initial = ChannelState(engine: engine)
        if let store, let restarted {
            initial.lastSequence = store.submit(ChannelRecord(name: name, engine: engine, changes: restarted))
        }
        self.state = Mutex(initial)
    }

    /// Reads the engine at the current time (deadlines up to now reached), under the channel's lock.
    func withEngine<T: Sendable>(_ body: (OverlayEngine, Instant) throws(APIError) -> T) throws(APIError) -> T {
        try access { (state, now) throws(APIError) in (try body(state.engine, now), Changes()) }.value
    }

    /// Runs an event on the engine at the current time, under the channel's lock, and stores what
    /// it changed: its answer, and the store sequence that holds it (nil when nothing is stored),
    /// to answer once it is durable. A write that changed nothing (a retried keyed POST, a PATCH
    /// to the same values) answers with what earlier writes made, which may not be on disk yet:
    /// it gets the channel's latest sequence, so that it too is answered only once that is
    /// durable (or 503 if that commit failed).
    func write<T: Sendable>(
        _ event: (inout OverlayEngine, Instant) -> Applied<T>
    ) -> (value: T, sequence: UInt64?) {
        access { state, now in
            let applied = event(&state.engine, now)
            return (applied.value, applied.changes)
        }
    }

    /// Reaches every deadline up to now; the scheduler's firings and the manual clock call this.
    /// For waiter deadlines, the access answers 304 to every waiter whose time is up and
    /// schedules the next.
    func advanceToNow() {
        access { _, _ in ((), Changes()) }
    }

    /// A commit of this channel's changes failed: nothing of them is on disk. The channel goes
    /// back to what the database holds (`stored`, read on the store's writer thread), every change
    /// not yet committed with it (its records are taken out of the store's queue, and their
    /// writers answered 503), then reaches the current time again. Readers get that state at once
    /// under a new version, beyond every one they may have seen; no id given before is given again.
    func rollBack(stored: () throws(StoreError) -> LoadedChannel?) {
        guard let store else { return }
        let effects = state.withLock { state -> ChannelEffects in
            store.discardPending(channel: name)
            let image: LoadedChannel?
            do {
                image = try stored()
            } catch {
                Diagnostics.write("overlayd: channel \(name) keeps changes that are not stored: \(error)\n")
                return ChannelEffects()
            }
            let before = state.engine.version
            let waitersBefore = state.waiters.count
            let now = clock.now()
            let configuration = state.engine.configuration
            // A channel the database holds nothing of was new: it goes back to a new one.
            var engine =
                image.map {
                    OverlayEngine.exactly(
                        configuration: configuration, state: $0.state, live: $0.live, history: $0.history,
                        devices: devices)
                } ?? OverlayEngine(configuration: configuration, now: now, version: before)
            engine.continueAfter(version: before, nextID: state.engine.nextID)
            state.engine = engine
            state.lastSequence = nil
            let changes = state.engine.advance(to: now)
            var effects = ChannelEffects()
            conclude(&state, into: &effects, versionBefore: before, waitersBefore: waitersBefore, changes, now)
            return effects
        }
        perform(consume effects)
    }

    // MARK: - Reading

    /// `GET /overlay`: 304 when `unlessVersion` is the current version, else the overlay now,
    /// filled into the version's template (encoded once per version, under the lock).
    func overlayResponse(unlessVersion: UInt64?) -> HTTPResponse {
        // Most reads fall between deadlines: nothing can change, so the engine is only looked at
        // (no advance, no records, no waiters to wake) and the version's template is filled in.
        enum Read {
            case unchanged(OverlayTemplate?)
            case shared(HTTPResponse)
            case overlay(OverlayTemplate, MovingValues, at: Instant)
            /// A deadline has passed: the read goes the full way, which reaches it.
            case deadlinePassed
        }
        let read = state.withLock { state -> Read in
            let now = clock.now()
            if let deadline = state.engine.nextDeadline, deadline <= now { return .deadlinePassed }
            if state.engine.version == unlessVersion {
                return .unchanged(state.template?.version == unlessVersion ? state.template : nil)
            }
            if let shared = state.sharedRead, shared.version == state.engine.version,
                clock.sharesReading(shared.at, with: now)
            {
                return .shared(shared.response)
            }
            if state.template?.version != state.engine.version {
                state.template = encoder.template(state.engine.overlay(at: now))
            }
            return .overlay(state.template!, state.engine.movingValues(at: now), at: now)
        }
        switch read {
        case .unchanged(let template):
            return template?.notModified ?? encoder.notModified(version: unlessVersion ?? 0)
        case .shared(let response):
            return response
        case .overlay(let template, let values, let now):
            // Filled in outside the lock; kept unless a newer answer got there first.
            var response = encoder.response(values, template)
            response.prepare()
            let shared = SharedRead(version: template.version, at: now, response: response)
            state.withLock { state in
                guard state.engine.version == shared.version else { return }
                if let kept = state.sharedRead, kept.version == shared.version, kept.at >= shared.at { return }
                state.sharedRead = shared
            }
            return response
        case .deadlinePassed:
            let overlay = access { state, now in (state.engine.overlay(at: now), Changes()) }.value
            return overlay.version == unlessVersion
                ? encoder.notModified(version: overlay.version) : encoder.response(overlay)
        }
    }

    // MARK: - Long-poll

    /// Answers `responder` with the overlay as soon as its version differs from `since`: now if it
    /// already does, else at the next change, or with 304 once `seconds` of wall-clock time pass.
    /// Returns false, answering nothing, if the channel has been retired (see `retireIfUnread`).
    func wait(since: UInt64, seconds: Double, responder: HTTPResponder) -> Bool {
        let deadline = MonotonicClock.nanoseconds() + Int64(seconds * 1e9)
        let (joined, current): (Bool, OverlaySnapshot?) = access { state, now in
            if state.retired { return ((false, nil), Changes()) }
            guard state.engine.version == since else { return ((true, state.engine.overlay(at: now)), Changes()) }
            state.waiters.append(ChannelWaiter(since: since, deadline: deadline, responder: responder))
            return ((true, nil), Changes())
        }.value
        if let current { responder.respond(encoder.response(current)) }
        return joined
    }

    // MARK: - Server-Sent Events

    /// Adds an event stream. It receives the current overlay at once unless `lastEventID` is the
    /// current version (a reconnecting client that has seen it), then every new version.
    /// Returns false, subscribing nothing, if the channel has been retired (see `retireIfUnread`).
    func subscribe(_ stream: HTTPStream, lastEventID: UInt64?) -> Bool {
        let joined = access { state, now -> ((Int, Subscriber, OverlaySnapshot?)?, Changes) in
            if state.retired { return (nil, Changes()) }
            let ticket = state.nextTicket
            state.nextTicket += 1
            // An id that is not the current version (older, or from before a restart of an
            // ephemeral server) gets the current overlay at once.
            let upToDate = state.engine.version == lastEventID
            let subscriber = Subscriber(stream: stream, lastSent: upToDate ? lastEventID : nil)
            state.subscribers.add(subscriber, ticket: ticket)
            return ((ticket, subscriber, upToDate ? nil : state.engine.overlay(at: now)), Changes())
        }.value
        guard let (ticket, subscriber, current) = joined else { return false }
        // Strong: the stream drops its close handlers once it has called them.
        stream.onClose { [self] in unsubscribe(ticket) }
        if let current { subscriber.deliver(current.version, encoder.event(current), limit: encoder.streamBufferBytes) }
        return true
    }

    /// Retires the channel if nobody reads it (no event stream, no long-poll still waiting):
    /// from then on it takes no reader. The registry's sweep of channels only readers made.
    func retireIfUnread() -> Bool {
        state.withLock { state in
            guard state.subscribers.isEmpty, state.waiters.allSatisfy({ $0.responder.hasResponded }) else {
                return false
            }
            state.retired = true
            return true
        }
    }

    private func unsubscribe(_ ticket: Int) {
        state.withLock { $0.subscribers.remove(ticket: ticket) }
    }

    /// Sends `comment` to every stream, so that proxies keep them open and dead clients are found.
    func heartbeat(_ comment: [UInt8]) {
        for subscriber in state.withLock({ $0.subscribers.all }) {
            subscriber.heartbeat(comment, limit: encoder.streamBufferBytes)
        }
    }

    /// The server is stopping: waiters get 503 now, streams end after what they hold.
    func releaseReaders() {
        var (waiters, subscribers) = state.withLock { state in
            defer { state.waiters = [] }
            return (state.waiters, state.subscribers.all)
        }
        waiters.answerAll(APIError.shuttingDown.response)
        for subscriber in subscribers { subscriber.stream.end() }
    }

    var subscriberCount: Int { state.withLock { $0.subscribers.count } }
    /// Waiters still waiting (a waiter whose client went away has been answered by the sweep).
    var waiterCount: Int { state.withLock { $0.waiters.filter { !$0.responder.hasResponded }.count } }

    // MARK: - The one path

    /// The one path: `body` gets the state with the engine at `now` and returns its answer with
    /// what its events changed.
    @discardableResult
    private func access<T, E: Error>(
        _ body: (inout ChannelState, Instant) throws(E) -> (T, Changes)
    ) throws(E) -> (value: T, sequence: UInt64?) {
        let (outcome, effects) = state.withLock { state -> (Result<T, E>, ChannelEffects) in
            let before = state.engine.version
            let waitersBefore = state.waiters.count
            let now = clock.now()
            var changes = state.engine.advance(to: now)
            let outcome: Result<T, E>
            do throws(E) {
                let (value, eventChanges) = try body(&state, now)
                changes.merge(eventChanges)
                outcome = .success(value)
            } catch {
                outcome = .failure(error)
            }
            var effects = ChannelEffects()
            conclude(&state, into: &effects, versionBefore: before, waitersBefore: waitersBefore, changes, now)
            return (outcome, effects)
        }
        let sequence = effects.sequence
        perform(consume effects)
        return (try outcome.get(), sequence)
    }

    /// The end of every access, under the lock: the changes go to the store, a new version to
    /// the readers, due waiters get 304, and deadlines that moved go to the scheduler.
    @inline(__always)
    private func conclude(
        _ state: inout ChannelState, into effects: inout ChannelEffects, versionBefore before: UInt64,
        waitersBefore: Int, _ changes: Changes, _ now: Instant
    ) {
        // Submitted under the lock, so that one channel's records reach the store in order.
        if let store, !changes.isEmpty {
            effects.sequence = store.submit(ChannelRecord(name: name, engine: state.engine, changes: changes))
            state.lastSequence = effects.sequence
        } else {
            effects.sequence = state.lastSequence
        }
        var waitersChanged = state.waiters.count != waitersBefore
        // Waiters only join in the body; any that left make the earliest deadline a full scan.
        var waitersLeft = state.waiters.count < waitersBefore
        if state.engine.version != before
            && (publisher != nil || !state.subscribers.isEmpty || !state.waiters.isEmpty)
        {
            effects.changed = state.engine.overlay(at: now)
            effects.tellsReaders = true
            effects.subscribers = state.subscribers.all
            if !state.waiters.isEmpty {
                effects.answered = state.waiters
                state.waiters = []
                waitersChanged = true
                waitersLeft = true
            }
        }
        // Waiters are only scanned once the earliest of them is due, not on every access.
        let monotonicNow = MonotonicClock.nanoseconds()
        if let earliest = state.waitersScheduled, earliest <= monotonicNow {
            effects.expired = state.waiters.filter { $0.deadline <= monotonicNow }
            effects.expiredVersion = state.engine.version
            effects.tellsReaders = true
            state.waiters.removeAll { $0.deadline <= monotonicNow }
            waitersChanged = true
            waitersLeft = true
        }
        // Deadlines go to the scheduler under the lock, in the order they are worked out. Handed
        // over after it, two accesses on two threads could hand them over the other way round,
        // and the scheduler would keep the older one: a 0.3 s wait parked beside a 30 s one
        // went unanswered that way. The scheduler never calls back under its own lock.
        if waitersChanged {
            // A join compares its deadline with the earliest so far: parking 10,000 long-polls
            // costs 10,000 steps, not 50 million (a scan per join was quadratic).
            let nextWaiter: Int64?
            if waitersLeft {
                nextWaiter = state.waiters.lazy.map(\.deadline).min()
            } else {
                let joined = state.waiters[waitersBefore...].lazy.map(\.deadline).min()
                switch (state.waitersScheduled, joined) {
                case (let earliest?, let newcomer?): nextWaiter = min(earliest, newcomer)
                case (let earliest, let newcomer): nextWaiter = earliest ?? newcomer
                }
            }
            if nextWaiter != state.waitersScheduled {
                state.waitersScheduled = nextWaiter
                scheduleWaiters(at: nextWaiter)
            }
        }
        // The scheduler is told only of a deadline earlier than the one it holds. A later one
        // (each immediate POST moves the shown message's end later) waits for the held one to
        // fire: that firing reaches nothing, forgets it (`deadlineReached`), and the access it
        // makes hands over the next. So a stream of writes costs no scheduling under this lock,
        // and at most one early wake-up per deadline that moved.
        if clock.mode == .real, let next = state.engine.nextDeadline, state.scheduled.map({ next < $0 }) ?? true {
            state.scheduled = next
            scheduleDeadline(at: next)
        }
    }

    // Strong captures: a weak one would give every channel a side table and make each retain of
    // it slower; the scheduler drops its entries when it stops.
    private func scheduleDeadline(at deadline: Instant?) {
        scheduler.schedule(.engine(channel: number), at: deadline.map(clock.monotonic(at:))) { [self] in
            deadlineReached()
        }
    }

    private func scheduleWaiters(at deadline: Int64?) {
        scheduler.schedule(.waiters(channel: number), at: deadline) { [self] in
            advanceToNow()
        }
    }

    /// Tells the readers (waiters are answered by `answerAll`, which says how).
    private func perform(_ effects: consuming ChannelEffects) {
        guard effects.tellsReaders else { return }
        if let overlay = effects.changed {
            publisher?.offer(channel: name, version: overlay.version, payload: overlay)
            if !effects.answered.isEmpty {
                // Built once in libmicrohttpd for every waiter: thousands of long-polls cost one
                // response, not one each.
                var response = encoder.response(overlay)
                response.prepare(dated: true)
                effects.answered.answerAll(response)
            }
            if !effects.subscribers.isEmpty {
                SubscriberList.deliver(
                    encoder.event(overlay), version: overlay.version, to: effects.subscribers,
                    limit: encoder.streamBufferBytes)
            }
        }
        if !effects.expired.isEmpty {
            var response = encoder.notModified(version: effects.expiredVersion)
            response.prepare(dated: true)
            effects.expired.answerAll(response)
        }
    }

    private func deadlineReached() {
        // The scheduler forgot this deadline when it fired: forget it here too, so that the next
        // access schedules whatever deadline comes next even if it is the same instant.
        state.withLock { $0.scheduled = nil }
        advanceToNow()
    }
}
