internal import CMicroHTTPD
import Platform
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// libmicrohttpd turned into `HTTPRequest -> HTTPResponse`.
///
/// The daemon runs an internal epoll loop on each thread of a pool; the handler runs on those
/// threads, so it must be quick and thread-safe. A handler may answer at once or keep the
/// `HTTPResponder` and answer later from any thread: the connection is then suspended, costing
/// no thread while it waits. It returns what the request is counted and logged under.
public final class HTTPServer: Sendable {
    public typealias Handler = @Sendable (HTTPRequest, HTTPResponder) -> RequestLabels
    public typealias AccessObserver = @Sendable (AccessRecord) -> Void

    /// Bytes of an over-long body read and dropped before the connection is closed instead.
    static let discardLimit = 1 << 20
    /// Connections open at once when the options set no limit: libmicrohttpd's own default.
    static let defaultConnectionLimit = 1020

    let handler: Handler
    let observer: AccessObserver?
    /// Where every finished request's status is counted, if anywhere.
    let responseCounts: ResponseCounts?
    /// Where every answered request's duration is counted, if anywhere.
    let durations: RequestDurations?
    /// The application's wording of the answers the server gives by itself.
    let refusals: @Sendable (HTTPRefusal) -> HTTPResponse
    let responseHeaders: [Header]
    let originHeaders: (@Sendable (String) -> [Header])?
    /// Whether there are `originHeaders`: a plain flag, read on every answer without touching the
    /// closure's context (a reference count every pool thread would write).
    let variesByOrigin: Bool
    let maxBodyBytes: Int
    let headCheck: (@Sendable (RequestHead) -> HeadVerdict)?
    /// See `HTTPServerOptions.streamSendBufferBytes`.
    let streamSendBufferBytes: Int
    /// The running libmicrohttpd daemon's address (0: none, or stopped), taken once by `stop`.
    private let daemon = Atomic<Int>(0)
    /// The listening socket and the thread that hands its connections to the daemon.
    let acceptor: ConnectionAcceptor
    /// Requests between their first byte and their completion (counted per thread: every
    /// request counts twice, from every pool thread).
    let inFlight = ShardedCounters(count: 1)
    /// Set by `beginDraining`: requests that start from then on are refused.
    private let draining = Atomic(false)
    var isDraining: Bool { draining.load(ordering: .acquiring) }
    /// MHD 0.9.75: whether libmicrohttpd keeps the raw request head where the head checks can see
    /// it (`overlayd_mhd_parses_in_place` in shim.h).
    let parsesInPlace = overlayd_mhd_parses_in_place() != 0
    /// Whether the access log wants each peer's address (looked up as the request completes).
    let recordsAddresses: Bool
    /// Whether a request's start is timed (there is an observer or durations): a plain flag, read
    /// per request without touching the observer's closure context.
    let timesRequests: Bool
    /// Responders waiting with a suspended connection (answered 503 when the server stops).
    let parked = ParkedRequests()
    /// The event streams being sent (ended when the server stops, or when the sweep finds their
    /// client gone): the application's registry, where it lists them under its groups too.
    public let streams: StreamRegistry
    /// The port the server listens on.
    public var port: Int { acceptor.port }

    /// The version of the libmicrohttpd in use ("0.9.75").
    public static var libraryVersion: String { String(cString: MHD_get_version()) }

    /// `responseCounts` counts the status of every finished request (0 if none was sent);
    /// `durations` the time to each answer, under the route the handler returns; `observer` gets
    /// the whole record, built only when there is one (the access log). `streams` is where the
    /// handler lists its event streams, if it does.
    public init(
        options: HTTPServerOptions, handler: @escaping Handler, responseCounts: ResponseCounts? = nil,
        durations: RequestDurations? = nil, observer: AccessObserver? = nil, streams: StreamRegistry = StreamRegistry()
    ) throws {
        self.handler = handler
        self.streams = streams
        self.observer = observer
        self.responseCounts = responseCounts
        self.durations = durations
        self.refusals = options.refusals
        self.responseHeaders = options.responseHeaders
        self.originHeaders = options.originHeaders
        self.variesByOrigin = options.originHeaders != nil
        self.maxBodyBytes = options.maxBodyBytes
        self.headCheck = options.headCheck
        self.streamSendBufferBytes = options.streamSendBufferBytes
        self.recordsAddresses = options.recordsAddresses
        self.timesRequests = observer != nil || durations != nil
        guard (0...65535).contains(options.port) else { throw HTTPServerError.invalidPort(options.port) }
        guard let address = SocketAddress(host: options.host, port: UInt16(options.port)) else {
            throw HTTPServerError.invalidHost(options.host)
        }

        // MHD 0.9.75: the limit is the acceptor's to keep (see ConnectionAcceptor); libmicrohttpd's
        // is set where no pool thread can reach it.
        let connectionLimit = options.connectionLimit > 0 ? options.connectionLimit : Self.defaultConnectionLimit
        let threads = max(1, options.threads)
        guard
            let acceptor = ConnectionAcceptor(
                address: address, connectionLimit: connectionLimit, sendBufferBytes: options.sendBufferBytes)
        else {
            throw HTTPServerError.cannotStart(host: options.host, port: options.port)
        }
        self.acceptor = acceptor
        // MHD 0.9.75: the daemon listens on nothing; the acceptor hands it its connections (see
        // ConnectionAcceptor for why).
        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue
        flags |= MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue | MHD_USE_NO_LISTEN_SOCKET.rawValue
        var settings = overlayd_mhd_options()
        settings.flags = flags
        settings.thread_pool_size = UInt32(threads)
        settings.connection_limit = UInt32(min(connectionLimit * (threads + 1), Int(UInt32.max)))
        settings.connection_timeout = UInt32(max(0, options.connectionTimeout))
        settings.per_ip_connection_limit = UInt32(max(0, options.connectionsPerClient))
        settings.connection_memory_limit = max(0, options.connectionMemoryLimit)
        HTTPServer.installCallbacks(in: &settings)
        let started: OpaquePointer? = withExtendedLifetime(self) {
            settings.setContext(Unmanaged.passUnretained(self).toOpaque())
            return overlayd_mhd_start(&settings)
        }
        guard let started else {
            acceptor.stop()
            throw HTTPServerError.cannotStart(host: options.host, port: options.port)
        }
        guard acceptor.start(daemon: started) else {
            acceptor.stop()
            MHD_stop_daemon(started)
            throw HTTPServerError.cannotStart(host: options.host, port: options.port)
        }
        daemon.store(Int(bitPattern: started), ordering: .releasing)
    }

    /// Closes the listening socket: no new connection is accepted; open ones go on. Idempotent.
    public func stopAccepting() {
        acceptor.stop()
    }

    /// Stops accepting connections, and answers every request that starts from now on (on a
    /// connection already open) with 503 and `Connection: close`: what is in flight can finish,
    /// nothing new begins.
    public func beginDraining() {
        stopAccepting()
        draining.store(true, ordering: .releasing)
    }

    /// Waits until no request is in flight, for up to `grace` seconds; true if none is.
    @discardableResult
    public func waitUntilIdle(grace: Double) -> Bool {
        let deadline = MonotonicClock.nanoseconds() + Int64(grace * 1e9)
        while inFlight.value() > 0 {
            if MonotonicClock.nanoseconds() >= deadline { return false }
            usleep(2_000)
        }
        return true
    }

    /// Drains (see `beginDraining`), ends event streams, answers every request still waiting 503,
    /// lets requests in flight finish for up to `grace` seconds, then closes every connection.
    /// Safe to call more than once.
    public func stop(grace: Double = 5) {
        beginDraining()
        guard
            let running = OpaquePointer(bitPattern: daemon.exchange(0, ordering: .acquiringAndReleasing))
        else { return }
        let waiting = parked.responders
        for stream in streams.all {
            stream.end()
        }
        for responder in waiting {
            responder.respond(refusals(.stopping))
        }
        waitUntilIdle(grace: grace)
        MHD_stop_daemon(running)
    }

    /// Ends every parked reader (see `HTTPResponder.endIfClientLeaves`) and stream whose client
    /// has closed its connection, and returns how many. libmicrohttpd does not watch suspended
    /// connections, so without a sweep a reader that went away would hold its connection (against
    /// `connectionLimit` and the per-client limit) until its wait ended or its stream's next write
    /// failed. Cheap: one `poll` over the parked sockets, and a peek at those it flags.
    @discardableResult
    public func reapDisconnected() -> Int {
        enum Parked {
            case stream(HTTPStream)
            case reader(HTTPResponder)

            func reapClientGone() -> Bool {
                switch self {
                case .stream(let stream): stream.reapClientGone()
                case .reader(let responder): responder.reapClientGone()
                }
            }
        }
        var probed: [(Parked, socket: Int32)] = []
        for stream in streams.all {
            if let socket = stream.sweepProbe() { probed.append((.stream(stream), socket)) }
        }
        for responder in parked.responders {
            if let socket = responder.sweepProbe() { probed.append((.reader(responder), socket)) }
        }
        var reaped = 0
        for index in ClientSocket.closed(probed.map(\.socket)) where probed[index].0.reapClientGone() { reaped += 1 }
        return reaped
    }

    deinit {
        stop(grace: 0)
    }
}
