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
public final class Publisher<Payload: Sendable>: PublishingLoop, @unchecked Sendable {
    public typealias Encode = @Sendable (Payload) -> [UInt8]
    public typealias Log = @Sendable (String) -> Void

    public let configuration: PublisherConfiguration
    private let encode: Encode
    private let log: Log
    /// Used by the publishing thread only.
    private let transport: PublishTransport

    // Guarded by `mutex`; the condition waits on CLOCK_MONOTONIC, like the deadline scheduler's.
    private let mutex = UnsafeMutablePointer<pthread_mutex_t>.allocate(capacity: 1)
    private let condition = UnsafeMutablePointer<pthread_cond_t>.allocate(capacity: 1)
    private var queue: PublishQueue
    private var counters = PublisherStatistics()
    /// A request is on its way.
    private var busy = false
    /// When the current outage began (monotonic nanoseconds), nil while requests succeed.
    private var failingSince: Int64?
    private var failuresInOutage = 0
    private var retryAt: Int64 = 0
    private var retryDelay: Double
    private var lastRefusalLogged: Int64?
    private var stopping = false
    private var stopDeadline: Int64 = 0
    private var thread = pthread_t()
    private var running = false
    /// The thread has left its loop.
    private var threadDone = false

    /// Starts the publishing thread. `encode` runs on that thread, once per version sent.
    public init(
        configuration: PublisherConfiguration, transport: PublishTransport, encode: @escaping Encode,
        log: @escaping Log
    ) {
        self.configuration = configuration
        self.transport = transport
        self.encode = encode
        self.log = log
        self.queue = PublishQueue(depth: max(1, configuration.queueDepth))
        self.retryDelay = configuration.initialRetryDelay
        pthread_mutex_init(mutex, nil)
        var attributes = pthread_condattr_t()
        pthread_condattr_init(&attributes)
        pthread_condattr_setclock(&attributes, CLOCK_MONOTONIC)
        pthread_cond_init(condition, &attributes)
        pthread_condattr_destroy(&attributes)
        running = true
        // The thread's C entry point cannot name a generic type: it runs the loop through the
        // non-generic `PublishingLoop`.
        let context = Unmanaged.passRetained(self as AnyObject).toOpaque()
        pthread_create(
            &thread, nil,
            { context in
                let loop = Unmanaged<AnyObject>.fromOpaque(context!).takeRetainedValue() as! PublishingLoop
                loop.runLoop()
                return nil
            }, context)
    }

    deinit {
        pthread_cond_destroy(condition)
        pthread_mutex_destroy(mutex)
        condition.deallocate()
        mutex.deallocate()
    }

    /// Queues `version` of `channel` for publishing. Never blocks on the endpoint.
    public func offer(channel: String, version: UInt64, payload: Payload) {
        pthread_mutex_lock(mutex)
        if !stopping {
            let wasEmpty = queue.isEmpty
            let dropped = queue.offer(
                channel: channel, version: version, payload: Boxed(payload), latestOnly: failingSince != nil)
            counters.superseded += UInt64(dropped)
            // The thread only sleeps on an empty queue or a retry pause; a pause needs no wake-up.
            if wasEmpty && failingSince == nil { pthread_cond_signal(condition) }
        }
        pthread_mutex_unlock(mutex)
    }

    public var statistics: PublisherStatistics {
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        var snapshot = counters
        snapshot.queued = queue.count
        snapshot.failing = failingSince != nil
        return snapshot
    }

    /// Waits until nothing is queued or on its way, for up to `timeout` seconds; true if so.
    public func waitUntilIdle(timeout: Double) -> Bool {
        let deadline = MonotonicClock.nanoseconds() + Int64(timeout * 1e9)
        pthread_mutex_lock(mutex)
        defer { pthread_mutex_unlock(mutex) }
        while !queue.isEmpty || busy {
            guard MonotonicClock.nanoseconds() < deadline else { return false }
            wait(until: deadline)
        }
        return true
    }

    /// Stops the thread: what is queued is still sent for up to `grace` seconds while the endpoint
    /// answers; the rest is dropped (and counted in the log). Returns within `grace` (and a tenth
    /// of a second) even if a request is still on its way: the thread then ends by itself when
    /// that request does, and a stopping server does not wait for the endpoint either.
    public func stop(grace: Double) {
        pthread_mutex_lock(mutex)
        guard running && !stopping else {
            pthread_mutex_unlock(mutex)
            return
        }
        stopping = true
        let now = MonotonicClock.nanoseconds()
        stopDeadline = now + Int64(max(0, grace) * 1e9)
        pthread_cond_broadcast(condition)
        let giveUp = stopDeadline + 100_000_000
        while !threadDone && MonotonicClock.nanoseconds() < giveUp {
            wait(until: giveUp)
        }
        let finished = threadDone
        let unsent = queue.count + (busy ? 1 : 0)
        pthread_mutex_unlock(mutex)
        if finished { pthread_join(thread, nil) } else { pthread_detach(thread) }
        if unsent > 0 { log("overlayd publishing ended unsent=\(unsent)\n") }
    }

    // MARK: - The publishing thread

    func runLoop() {
        pthread_mutex_lock(mutex)
        while true {
            let now = MonotonicClock.nanoseconds()
            if stopping && (queue.isEmpty || failingSince != nil || now >= stopDeadline) { break }
            if failingSince != nil && now < retryAt {
                wait(until: stopping ? min(retryAt, stopDeadline) : retryAt)
                continue
            }
            guard var job = queue.next() else {
                pthread_cond_broadcast(condition)  // `waitUntilIdle`
                if stopping { break }
                pthread_cond_wait(condition, mutex)
                continue
            }
            busy = true
            if failingSince != nil { counters.retried += 1 }
            pthread_mutex_unlock(mutex)
            if job.body == nil { job.body = encode(unsafeDowncast(job.payload, to: Boxed<Payload>.self).value) }
            let result = transport.post(url: configuration.url(for: job.channel), body: job.body!)
            pthread_mutex_lock(mutex)
            busy = false
            record(result, of: job)
            pthread_cond_broadcast(condition)
        }
        threadDone = true
        pthread_cond_broadcast(condition)
        pthread_mutex_unlock(mutex)
    }

    /// Under the lock: counts the attempt, and puts the job back for a retry if the endpoint is
    /// unavailable.
    private func record(_ result: TransportResult, of job: PublishQueue.Job) {
        let now = MonotonicClock.nanoseconds()
        let unavailable: String
        switch result {
        case .status(let status) where (200..<300).contains(status):
            counters.published += 1
            if let since = failingSince {
                let seconds = Double(now - since) / 1e9
                log(
                    "overlayd publishing resumed endpoint=\(endpoint) after_seconds=\(format(seconds))"
                        + " failed_requests=\(failuresInOutage)\n")
                failingSince = nil
            }
            retryDelay = configuration.initialRetryDelay
            return
        case .status(let status) where status == 0 || status >= 500 || status == 408 || status == 429:
            unavailable = "status \(status)"
        case .status(let status):
            counters.failed += 1
            // A refusal is about this message, not the endpoint: drop it, and log at most once a minute.
            if lastRefusalLogged.map({ now - $0 >= 60_000_000_000 }) ?? true {
                lastRefusalLogged = now
                log(
                    "overlayd publishing refused channel=\(job.channel) version=\(job.version) status=\(status)"
                        + " (the version is dropped; further refusals within a minute are not logged)\n")
            }
            return
        case .failed(let reason):
            unavailable = reason
        }
        counters.failed += 1
        var retry = job
        retry.attempts += 1
        counters.superseded += UInt64(queue.putBack(retry))
        if failingSince == nil {
            failingSince = now
            failuresInOutage = 0
            counters.superseded += UInt64(queue.collapse())
            log(
                "overlayd publishing stopped endpoint=\(endpoint) error=\"\(sanitised(unavailable))\""
                    + " (retrying with backoff; each channel keeps its latest version)\n")
        }
        failuresInOutage += 1
        retryAt = now + Int64(retryDelay * 1e9)
        retryDelay = min(retryDelay * 2, configuration.maximumRetryDelay)
    }

    /// Sleeps on the condition until `deadline` (monotonic nanoseconds) or a signal.
    private func wait(until deadline: Int64) {
        var until = timespec(tv_sec: Int(deadline / 1_000_000_000), tv_nsec: Int(deadline % 1_000_000_000))
        pthread_cond_timedwait(condition, mutex, &until)
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

/// The publishing thread's entry point, without the generic parameter a C function pointer
/// cannot carry.
protocol PublishingLoop: AnyObject {
    func runLoop()
}

/// A payload in the queue, which holds references only (see `PublishQueue`).
final class Boxed<Value> {
    let value: Value

    init(_ value: Value) {
        self.value = value
    }
}
