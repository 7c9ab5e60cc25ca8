import Platform

#if canImport(Glibc)
    import Glibc
#endif

/// What the publisher has done so far, for `/metrics`.
public struct PublisherStatistics: Hashable, Sendable {
    /// Versions the endpoint took (a 2xx answer).
    public var published: UInt64 = 0
    /// Requests that failed: no answer, a 5xx, 408 or 429 (retried), or another status (dropped).
    public var failed: UInt64 = 0
    /// Requests made while the endpoint was failing: retries, of the failed version or of a newer
    /// one of its channel.
    public var retried: UInt64 = 0
    /// Versions dropped unsent because a newer one of their channel came first.
    public var superseded: UInt64 = 0
    /// Versions waiting now.
    public var queued = 0
    /// Whether the latest request failed and the publisher is backing off.
    public var failing = false

    public init() {}
}

/// Sends every new version of every channel to a pub/sub endpoint on one thread of its own.
///
/// `offer` only queues (a short lock, no I/O, no allocation beyond the queue's) so a write never
/// waits for the endpoint. The thread takes versions channel by channel (see `PublishQueue`),
/// encodes each one and POSTs it. A request that gets no answer, a 5xx, 408 or 429 is retried
/// after a pause that doubles from `initialRetryDelay` up to `maximumRetryDelay`; meanwhile every
/// channel keeps only its newest version, so after the outage each channel that changed sends its
/// current version once. Any other status drops that version (the endpoint refuses it; sending it
/// again would not help). The log gets one line when publishing stops and one when it resumes,
/// never one per retry.
// Safe to share: every mutable field is in `worker`'s state, reached only under its lock; the
// transport is used by the publishing thread only, and the rest never changes.
public final class Publisher<Payload: Sendable>: @unchecked Sendable {
    public typealias Encode = @Sendable (Payload) -> [UInt8]
    public typealias Log = @Sendable (String) -> Void

    public let configuration: PublisherConfiguration
    private let encode: Encode
    private let log: Log
    /// Used by the publishing thread only.
    private let transport: PublishTransport

    /// What the lock guards.
    private struct State: Sendable {
        var queue: PublishQueue
        var counters = PublisherStatistics()
        /// A request is on its way.
        var busy = false
        /// When the current outage began (monotonic nanoseconds), nil while requests succeed.
        var failingSince: Int64?
        var failuresInOutage = 0
        var retryAt: Int64 = 0
        var retryDelay: Double
        var lastRefusalLogged: Int64?
        var stopping = false
        var stopDeadline: Int64 = 0
        /// The thread has left its loop.
        var threadDone = false
    }

    /// The publishing thread and the state it shares with writers (the same thread-with-a-
    /// condition type as the store's writer and the deadline scheduler).
    private let worker: ConditionThread<State>

    /// What the publishing thread does next.
    private enum Step {
        case send(PublishQueue.Job)
        case stop
    }

    /// Starts the publishing thread. `encode` runs on that thread, once per version sent.
    public init(
        configuration: PublisherConfiguration, transport: PublishTransport, encode: @escaping Encode,
        log: @escaping Log
    ) {
        self.configuration = configuration
        self.transport = transport
        self.encode = encode
        self.log = log
        self.worker = ConditionThread(
            State(
                queue: PublishQueue(depth: max(1, configuration.queueDepth)),
                retryDelay: configuration.initialRetryDelay))
        // The thread holds the publisher until its loop returns.
        worker.start { [self] in runLoop() }
    }

    /// Queues `version` of `channel` for publishing. Never blocks on the endpoint.
    public func offer(channel: String, version: UInt64, payload: Payload) {
        worker.withLock { locked in
            guard !locked.state.stopping else { return }
            let wasEmpty = locked.state.queue.isEmpty
            let failing = locked.state.failingSince != nil
            let dropped = locked.state.queue.offer(
                channel: channel, version: version, payload: Boxed(payload), latestOnly: failing)
            locked.state.counters.superseded += UInt64(dropped)
            // The thread only sleeps on an empty queue or a retry pause; a pause needs no wake-up.
            if wasEmpty && !failing { locked.signal() }
        }
    }

    public var statistics: PublisherStatistics {
        worker.withLock { locked in
            var snapshot = locked.state.counters
            snapshot.queued = locked.state.queue.count
            snapshot.failing = locked.state.failingSince != nil
            return snapshot
        }
    }

    /// Waits until nothing is queued or on its way, for up to `timeout` seconds; true if so.
    public func waitUntilIdle(timeout: Double) -> Bool {
        let deadline = MonotonicClock.nanoseconds() + Int64(timeout * 1e9)
        return worker.withLock { locked in
            while !locked.state.queue.isEmpty || locked.state.busy {
                guard MonotonicClock.nanoseconds() < deadline else { return false }
                locked.wait(untilMonotonic: deadline)
            }
            return true
        }
    }

    /// Stops the thread: what is queued is still sent for up to `grace` seconds while the endpoint
    /// answers; the rest is dropped (and counted in the log). Returns within `grace` (and a tenth
    /// of a second) even if a request is still on its way: the thread then ends by itself when
    /// that request does, and a stopping server does not wait for the endpoint either.
    public func stop(grace: Double) {
        let outcome: (finished: Bool, unsent: Int)? = worker.withLock { locked in
            guard !locked.state.stopping else { return nil }
            locked.state.stopping = true
            let deadline = MonotonicClock.nanoseconds() + Int64(max(0, grace) * 1e9)
            locked.state.stopDeadline = deadline
            locked.broadcast()
            let giveUp = deadline + 100_000_000
            while !locked.state.threadDone && MonotonicClock.nanoseconds() < giveUp {
                locked.wait(untilMonotonic: giveUp)
            }
            return (locked.state.threadDone, locked.state.queue.count + (locked.state.busy ? 1 : 0))
        }
        guard let outcome else { return }
        if outcome.finished { worker.join() } else { worker.detach() }
        if outcome.unsent > 0 { log("overlayd publishing ended unsent=\(outcome.unsent)\n") }
    }

    // MARK: - The publishing thread

    private func runLoop() {
        var finished: (job: PublishQueue.Job, result: TransportResult)? = nil
        while true {
            let step: Step = worker.withLock { locked in
                if let (job, result) = finished {
                    locked.state.busy = false
                    record(result, of: job, in: &locked.state)
                    locked.broadcast()
                }
                while true {
                    let now = MonotonicClock.nanoseconds()
                    let failing = locked.state.failingSince != nil
                    if locked.state.stopping
                        && (locked.state.queue.isEmpty || failing || now >= locked.state.stopDeadline)
                    {
                        return .stop
                    }
                    if failing && now < locked.state.retryAt {
                        let retryAt = locked.state.retryAt
                        locked.wait(
                            untilMonotonic: locked.state.stopping ? min(retryAt, locked.state.stopDeadline) : retryAt)
                        continue
                    }
                    guard let job = locked.state.queue.next() else {
                        locked.broadcast()  // `waitUntilIdle`
                        if locked.state.stopping { return .stop }
                        locked.wait()
                        continue
                    }
                    locked.state.busy = true
                    if failing { locked.state.counters.retried += 1 }
                    return .send(job)
                }
            }
            guard case .send(var job) = step else { break }
            if job.body == nil { job.body = encode(unsafeDowncast(job.payload, to: Boxed<Payload>.self).value) }
            finished = (job, transport.post(url: configuration.url(for: job.channel), body: job.body!))
        }
        worker.withLock { locked in
            locked.state.threadDone = true
            locked.broadcast()
        }
    }

    /// Under the lock: counts the attempt, and puts the job back for a retry if the endpoint is
    /// unavailable.
    private func record(_ result: TransportResult, of job: PublishQueue.Job, in state: inout State) {
        let now = MonotonicClock.nanoseconds()
        let unavailable: String
        switch result {
        case .status(let status) where (200..<300).contains(status):
            state.counters.published += 1
            if let since = state.failingSince {
                let seconds = Double(now - since) / 1e9
                log(
                    "overlayd publishing resumed endpoint=\(endpoint) after_seconds=\(format(seconds))"
                        + " failed_requests=\(state.failuresInOutage)\n")
                state.failingSince = nil
            }
            state.retryDelay = configuration.initialRetryDelay
            return
        case .status(let status) where status == 0 || status >= 500 || status == 408 || status == 429:
            unavailable = "status \(status)"
        case .status(let status):
            state.counters.failed += 1
            // A refusal is about this message, not the endpoint: drop it, and log at most once a minute.
            if state.lastRefusalLogged.map({ now - $0 >= 60_000_000_000 }) ?? true {
                state.lastRefusalLogged = now
                log(
                    "overlayd publishing refused channel=\(job.channel) version=\(job.version) status=\(status)"
                        + " (the version is dropped; further refusals within a minute are not logged)\n")
            }
            return
        case .failed(let reason):
            unavailable = reason
        }
        state.counters.failed += 1
        var retry = job
        retry.attempts += 1
        state.counters.superseded += UInt64(state.queue.putBack(retry))
        if state.failingSince == nil {
            state.failingSince = now
            state.failuresInOutage = 0
            state.counters.superseded += UInt64(state.queue.collapse())
            log(
                "overlayd publishing stopped endpoint=\(endpoint) error=\"\(sanitised(unavailable))\""
                    + " (retrying with backoff; each channel keeps its latest version)\n")
        }
        state.failuresInOutage += 1
        state.retryAt = now + Int64(state.retryDelay * 1e9)
        state.retryDelay = min(state.retryDelay * 2, configuration.maximumRetryDelay)
    }

    /// The endpoint for the log: the template without any user and password in it.
    private var endpoint: String {
        let template = configuration.urlTemplate
        guard let scheme = template.firstRange(of: "://") else { return template }
        let rest = template[scheme.upperBound...]
        let authorityEnd = rest.firstIndex(of: "/") ?? rest.endIndex
        guard let at = rest[..<authorityEnd].lastIndex(of: "@") else { return template }
        return String(template[..<scheme.upperBound]) + String(rest[rest.index(after: at)...])
    }

    private func sanitised(_ text: String) -> String {
        String(text.map { $0 == "\"" || $0.isNewline ? "'" : $0 }.prefix(200))
    }

    private func format(_ seconds: Double) -> String {
        let tenths = Int((seconds * 10).rounded())
        return "\(tenths / 10).\(tenths % 10)"
    }
}

/// A payload in the queue, which holds references only (see `PublishQueue`).
final class Boxed<Value: Sendable>: Sendable {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
