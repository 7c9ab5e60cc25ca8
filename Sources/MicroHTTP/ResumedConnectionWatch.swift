private import CMicroHTTPD
import Platform
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// Watches the connections whose last request was answered after a suspension, and makes the
/// kernel signal libmicrohttpd again for any whose next request sits unread.
///
/// MHD 0.9.75: its epoll loop is edge-triggered, and after a mass resume (a long-poll fan-out) it
/// sometimes takes the readiness of the waiters' next requests without serving them: one pool
/// thread's share of the connections then holds a request nobody reads until the idle timeout,
/// although they are in that thread's epoll set and the thread keeps running. (Waking the thread
/// seemed no help when this was found; three soaks since suggest it is the full batch's stall,
/// which `EpollContinuation` ends, seen from another thread: bench/README.md. The watch stays
/// until a longer soak without it agrees.) (Its poll loop has no stall, but takes a client's
/// half-close for a disconnect.) A fresh readiness event gets each one served at once, and setting
/// `SO_RCVLOWAT` (to its default, 1) makes the kernel raise one for a socket with data waiting.
/// So, until its next request starts, such a connection's receive queue is looked at every
/// 20 ms, and a non-empty one is woken that way (harmless when the loop was about to read it).
///
/// A connection is only looked at once it has been watched for `graceNanoseconds` (see
/// `WatchedSockets`): almost every next request starts well before and unwatches it, so a
/// fan-out's thousands of answers cost no system call each on this thread while they go out. A
/// connection found closed is forgotten at once, not looked at for the rest of its 30 s.
final class ResumedConnectionWatch: Sendable {
    /// Seconds a connection is watched for its next request at most.
    static let watchNanoseconds: Int64 = 30_000_000_000
    /// How long a next request may take to start before its socket is looked at.
    static let graceNanoseconds: Int64 = 100_000_000
    static let tickMilliseconds: Int32 = 20

    /// The watches, one set per thread (`ThreadShard`). A connection's answers and its next
    /// requests all reach the server on the one pool thread that owns it, so watch and unwatch
    /// take that thread's own lock, never one every pool thread shares (docs/ARCHITECTURE.md,
    /// hot-path rules).
    private final class Shard: Sendable {
        let watched = Lock(
            WatchedSockets(
                grace: ResumedConnectionWatch.graceNanoseconds, limit: ResumedConnectionWatch.watchNanoseconds))
        /// How many are watched, read without the lock on every request's first call.
        let count = Atomic(0)
        /// Keeps the next shard's lock and count off this one's cache line.
        private let padding: (Int, Int, Int, Int, Int, Int, Int, Int) = (0, 0, 0, 0, 0, 0, 0, 0)
    }

    private let shards = ThreadShards { Shard() }
    private let stopped = Atomic(false)
    private let thread = Lock<pthread_t?>(nil)
    /// A byte written here wakes the thread: a first connection to watch, or the stop.
    private let wakeRead: Int32
    private let wakeWrite: Int32

    init() {
        var ends: [Int32] = [-1, -1]
        if pipe(&ends) == 0 {
            _ = fcntl(ends[0], F_SETFD, FD_CLOEXEC)
            _ = fcntl(ends[1], F_SETFD, FD_CLOEXEC)
            _ = fcntl(ends[1], F_SETFL, O_NONBLOCK)
        }
        wakeRead = ends[0]
        wakeWrite = ends[1]
    }

    deinit {
        if wakeRead >= 0 { close(wakeRead) }
        if wakeWrite >= 0 { close(wakeWrite) }
    }

    /// Whether any connection is watched.
    private var isWatching: Bool { shards.all.contains { $0.count.load(ordering: .relaxed) > 0 } }

    /// Watches `socket` until its next request starts (`unwatch`), or for 30 s. Called on the
    /// thread that serves the socket's connection, whose shard (`ThreadShard.current`) is `shard`.
    func watch(_ socket: Int32, shard: Int) {
        guard socket >= 0 else { return }
        let wasEmpty = shards.with(shard) { shard in
            shard.watched.withLock { watched -> Bool in
                let wasEmpty = watched.count == 0
                // Coarse: a watch that starts a few milliseconds early is looked at that much sooner,
                // against a grace of 100 ms. Read on every answer after a suspension.
                watched.watch(socket, at: MonotonicClock.coarseNanoseconds())
                shard.count.store(watched.count, ordering: .relaxed)
                return wasEmpty
            }
        }
        if wasEmpty { wake() }
    }

    /// A request started on `connection`, on the thread that serves it, whose shard is `shard`:
    /// libmicrohttpd is reading it. Cheap when this thread watches nothing (one load, no lock, no
    /// socket looked up).
    func unwatch(socketOf connection: OpaquePointer, shard: Int) {
        shards.with(shard) { shard in
            guard shard.count.load(ordering: .relaxed) > 0 else { return }
            let socket = ClientSocket.descriptor(of: connection)
            shard.watched.withLock { watched in
                guard watched.unwatch(socket) else { return }
                shard.count.store(watched.count, ordering: .relaxed)
            }
        }
    }

    func start() {
        var created = pthread_t()
        let context = Unmanaged.passRetained(self).toOpaque()
        let result = pthread_create(
            &created, nil,
            { context in
                Unmanaged<ResumedConnectionWatch>.fromOpaque(context!).takeRetainedValue().run()
                return nil
            }, context)
        if result == 0 {
            thread.withLock { $0 = created }
        } else {
            Unmanaged<ResumedConnectionWatch>.fromOpaque(context).release()
        }
    }

    /// Ends the watch and waits for its thread. Idempotent.
    func stop() {
        stopped.store(true, ordering: .releasing)
        wake()
        guard
            let running = thread.withLock({ thread -> pthread_t? in
                defer { thread = nil }
                return thread
            })
        else { return }
        pthread_join(running, nil)
    }

    private func wake() {
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
    }

    private func run() {
        var drain = [UInt8](repeating: 0, count: 64)
        while !stopped.load(ordering: .acquiring) {
            var wakeUp = pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0)
            // Asleep while nothing is watched; a tick at a time while something is.
            if poll(&wakeUp, 1, isWatching ? ResumedConnectionWatch.tickMilliseconds : -1) > 0 {
                _ = drain.withUnsafeMutableBytes { read(wakeRead, $0.baseAddress, $0.count) }
            }
            if stopped.load(ordering: .acquiring) { break }
            let now = MonotonicClock.nanoseconds()
            for shard in shards.all { look(at: shard, now: now) }
        }
    }

    private func look(at shard: Shard, now: Int64) {
        let sockets = shard.watched.withLock { watched -> [Int32] in
            let sockets = watched.due(at: now)
            shard.count.store(watched.count, ordering: .relaxed)
            return sockets
        }
        var one: Int32 = 1
        var closed: [Int32] = []
        for socket in sockets {
            let unread = overlayd_unread_bytes(socket)
            if unread > 0 {
                _ = setsockopt(socket, SOL_SOCKET, SO_RCVLOWAT, &one, socklen_t(MemoryLayout<Int32>.size))
            } else if unread < 0 {
                closed.append(socket)
            }
        }
        // A connection that closed has no next request: without this its socket number would be
        // looked at every tick for the rest of its 30 s, a failing system call each time.
        if !closed.isEmpty {
            shard.watched.withLock { watched in
                watched.closed(closed)
                shard.count.store(watched.count, ordering: .relaxed)
            }
        }
    }
}
