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
/// no thread while it waits.
public final class HTTPServer: Sendable {
    public typealias Handler = @Sendable (HTTPRequest, HTTPResponder) -> Void
    public typealias AccessObserver = @Sendable (AccessRecord) -> Void

    /// Bytes of an over-long body read and dropped before the connection is closed instead.
    static let discardLimit = 1 << 20

    let handler: Handler
    let observer: AccessObserver?
    /// Where every finished request's status is counted, if anywhere.
    let responseCounts: ResponseCounts?
    /// The application's wording of the answers the server gives by itself.
    let refusals: @Sendable (HTTPRefusal) -> HTTPResponse
    let responseHeaders: [Header]
    let originHeaders: (@Sendable (String) -> [Header])?
    /// Whether there are `originHeaders`: a plain flag, read on every answer without touching the
    /// closure's context (a reference count every pool thread would write).
    let variesByOrigin: Bool
    let maxBodyBytes: Int
    /// See `HTTPServerOptions.streamSendBufferBytes`.
    let streamSendBufferBytes: Int
    private let daemon = Mutex<Daemon?>(nil)
    /// The listening socket and the thread that hands its connections to the daemon.
    private let acceptor: ConnectionAcceptor
    /// Connections answered after a suspension, until their next request starts.
    let resumeWatch = ResumedConnectionWatch()
    /// Requests between their first byte and their completion (counted per thread: every
    /// request counts twice, from every pool thread).
    let inFlight = ShardedCounters(count: 1)
    /// Set by `beginDraining`: requests that start from then on are refused.
    private let draining = Atomic(false)
    /// Whether libmicrohttpd keeps the raw request head where the head checks can see it.
    let parsesInPlace = overlayd_mhd_parses_in_place() != 0
    /// Whether the access log wants each peer's address (looked up as the request completes).
    let recordsAddresses: Bool
    /// Responders waiting with a suspended connection, answered 503 when the server stops.
    let suspended = SuspendedResponders()
    /// Streams being sent, ended when the server stops.
    let streams = Mutex([ObjectIdentifier: HTTPStream]())
    /// The port the server listens on.
    public var port: Int { acceptor.port }

    /// The version of the libmicrohttpd in use ("0.9.75").
    public static var libraryVersion: String { String(cString: MHD_get_version()) }

    /// `responseCounts` counts the status of every finished request (0 if none was sent);
    /// `observer` gets the whole record, built only when there is one (the access log).
    public init(
        options: HTTPServerOptions, handler: @escaping Handler, responseCounts: ResponseCounts? = nil,
        observer: AccessObserver? = nil
    ) throws {
        self.handler = handler
        self.observer = observer
        self.responseCounts = responseCounts
        self.refusals = options.refusals
        self.responseHeaders = options.responseHeaders
        self.originHeaders = options.originHeaders
        self.variesByOrigin = options.originHeaders != nil
        self.maxBodyBytes = options.maxBodyBytes
        self.streamSendBufferBytes = options.streamSendBufferBytes
        self.recordsAddresses = options.recordsAddresses
        guard (0...65535).contains(options.port) else { throw HTTPServerError.invalidPort(options.port) }
        guard let address = SocketAddress(host: options.host, port: UInt16(options.port)) else {
            throw HTTPServerError.invalidHost(options.host)
        }

        guard let acceptor = ConnectionAcceptor(address: address) else {
            throw HTTPServerError.cannotStart(host: options.host, port: options.port)
        }
        self.acceptor = acceptor
        // The daemon is handed its connections by the acceptor (see there for why).
        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue
        flags |= MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue | MHD_USE_NO_LISTEN_SOCKET.rawValue
        var settings = overlayd_mhd_options()
        settings.flags = flags
        settings.thread_pool_size = UInt32(max(1, options.threads))
        settings.connection_limit = UInt32(max(0, options.connectionLimit))
        settings.connection_timeout = UInt32(max(0, options.connectionTimeout))
        settings.per_ip_connection_limit = UInt32(max(0, options.connectionsPerClient))
        settings.connection_memory_limit = max(0, options.connectionMemoryLimit)
        settings.handler = { context, connection, url, method, version, data, size, slot in
            // `_withUnsafeGuaranteedRef`: no retain and release of the shared server per call, which
            // two threads would otherwise fight over (the daemon never outlives the server).
            Unmanaged<HTTPServer>.fromOpaque(context!)._withUnsafeGuaranteedRef {
                $0.access(connection!, url: url, method: method, version: version, data: data, size: size!, slot: slot!)
            }
        }
        settings.completed = { context, connection, slot, _ in
            Unmanaged<HTTPServer>.fromOpaque(context!)._withUnsafeGuaranteedRef {
                $0.completed(connection, slot: slot)
            }
        }
        let started: OpaquePointer? = withExtendedLifetime(self) {
            let me = Unmanaged.passUnretained(self).toOpaque()
            settings.handler_context = me
            settings.completed_context = me
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
        daemon.withLock { $0 = Daemon(pointer: started) }
        if options.watchesResumedConnections { resumeWatch.start() }
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
            let running = daemon.withLock({ daemon -> Daemon? in
                defer { daemon = nil }
                return daemon
            })?.pointer
        else { return }
        let waiting = suspended.all
        for stream in streams.withLock({ Array($0.values) }) {
            stream.end()
        }
        for responder in waiting {
            responder.respond(refusals(.stopping))
        }
        waitUntilIdle(grace: grace)
        resumeWatch.stop()
        MHD_stop_daemon(running)
    }

    /// Ends every parked reader (see `HTTPResponder.endIfClientLeaves`) and stream whose client
    /// has closed its connection, and returns how many. libmicrohttpd does not watch suspended
    /// connections, so without a sweep a reader that went away would hold its connection (against
    /// `connectionLimit` and the per-client limit) until its wait ended or its stream's next write
    /// failed. Cheap: one non-blocking peek per parked connection.
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
        var parked: [(Parked, socket: Int32)] = []
        for stream in streams.withLock({ Array($0.values) }) {
            if let socket = stream.sweepProbe() { parked.append((.stream(stream), socket)) }
        }
        for responder in suspended.all {
            if let socket = responder.sweepProbe() { parked.append((.reader(responder), socket)) }
        }
        var reaped = 0
        for index in ClientSocket.closed(parked.map(\.socket)) where parked[index].0.reapClientGone() { reaped += 1 }
        return reaped
    }

    deinit {
        stop(grace: 0)
    }

    // MARK: - libmicrohttpd callbacks

    /// Called by libmicrohttpd once when the request head has arrived, once per piece of body, and
    /// once at the end (size 0). The answer is given on that last call: answering on the first
    /// makes libmicrohttpd 0.9.75 close the connection after the response.
    fileprivate func access(
        _ connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
        version: UnsafePointer<CChar>?, data: UnsafePointer<CChar>?, size: UnsafeMutablePointer<Int>,
        slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        // The URI log callback's mark: the query had too many parameters and was cut (shim.h).
        let tooManyParameters = slot.pointee == UnsafeMutableRawPointer(bitPattern: 1)
        if tooManyParameters { slot.pointee = nil }
        guard let existing = slot.pointee else {
            let responder = HTTPResponder(
                server: self, connection: connection,
                method: method.map { String(cString: $0) } ?? "", path: url.map { String(cString: $0) } ?? "/")
            slot.pointee = Unmanaged.passRetained(responder).toOpaque()
            inFlight.add(1, shard: responder.shard)
            resumeWatch.unwatch(socketOf: connection, shard: responder.shard)
            if draining.load(ordering: .acquiring) {
                // Answered on the first call: libmicrohttpd then closes the connection after it.
                return responder.refuse(connection, .stopping) ? .YES : .NO
            }
            if tooManyParameters {
                let limit = Int(OVERLAYD_MAX_QUERY_PARAMETERS)
                return responder.refuse(connection, .malformed("more than \(limit) query parameters")) ? .YES : .NO
            }
            let head = overlayd_mhd_check_head(connection, method, version, parsesInPlace ? 1 : 0)
            if let refusal = HTTPServer.refusal(head) {
                return responder.refuse(connection, refusal) ? .YES : .NO
            }
            if head.content_length > maxBodyBytes {
                return responder.refuse(connection, .bodyTooLarge(limit: maxBodyBytes)) ? .YES : .NO
            }
            responder.headJudged(head)
            return .YES
        }
        return Unmanaged<HTTPResponder>.fromOpaque(existing)._withUnsafeGuaranteedRef { responder in
            guard size.pointee > 0 else { return responder.requestReceived(connection) ? .YES : .NO }
            let count = size.pointee
            size.pointee = 0
            return responder.bodyArrived(data, count: count) ? .YES : .NO
        }
    }

    /// What is wrong with a request's head, if anything (RFC 9112), as the refusal to answer it
    /// with. Two lengths for one body (Content-Length headers that disagree, or one beside
    /// Transfer-Encoding) would let a proxy in front that read the other length see another
    /// request start in the body (request smuggling); libmicrohttpd picks one and reads on.
    private static func refusal(_ head: overlayd_head) -> HTTPRefusal? {
        switch head.problem {
        case 0: return nil
        case Int32(OVERLAYD_HEAD_CONFLICTING_LENGTHS.rawValue):
            return .ambiguousFraming("conflicting Content-Length headers")
        case Int32(OVERLAYD_HEAD_LENGTH_AND_CODING.rawValue):
            return .ambiguousFraming("both Content-Length and Transfer-Encoding")
        case Int32(OVERLAYD_HEAD_UNKNOWN_CODING.rawValue):
            let coding = head.coding.map {
                String(decoding: UnsafeRawBufferPointer(start: $0, count: head.coding_size), as: UTF8.self)
            }
            return .unsupportedTransferCoding(coding ?? "")
        case Int32(OVERLAYD_HEAD_BAD_NAME.rawValue):
            return .malformed("a header name is not a token (whitespace before the colon?)")
        case Int32(OVERLAYD_HEAD_CONTROL_CHARACTER.rawValue):
            return .malformed("a header value holds a control character")
        case Int32(OVERLAYD_HEAD_BARE_LF.rawValue):
            return .malformed("a line ends with LF alone, not CR LF")
        default:
            return .malformed("a header line holds a NUL")
        }
    }

    fileprivate func completed(_ connection: OpaquePointer?, slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
        guard let slot, let existing = slot.pointee else { return }
        slot.pointee = nil
        let responder = Unmanaged<HTTPResponder>.fromOpaque(existing).takeRetainedValue()
        let (status, bytes) = responder.finish()
        inFlight.add(-1, shard: responder.shard)
        responder.unlist()
        responseCounts?.count(status: status, shard: responder.shard)
        if let observer {
            if recordsAddresses { responder.recordAddress(connection) }
            observer(responder.record(status: status, bytes: bytes))
        }
    }

    /// The request for the handler. Headers and the peer's address are looked up on demand (most
    /// requests need one or two headers, and only writes need the address), which is only possible
    /// while the handler runs: `lookup` is closed when it returns.
    func makeRequest(_ responder: HTTPResponder, _ connection: OpaquePointer) -> HTTPRequest {
        let count = Int(MHD_get_connection_values(connection, .GET_ARGUMENT_KIND, nil, nil))
        let query = count == 0 ? [] : queryItems(connection, count: count)
        return HTTPRequest(
            method: responder.method, path: responder.path, query: query, body: responder.body,
            bodyTooLarge: responder.bodyTooLarge, lookup: responder)
    }

    /// The query's `count` items, in order, collected straight into their array.
    private func queryItems(_ connection: OpaquePointer, count: Int) -> [QueryItem] {
        var items: [QueryItem] = []
        items.reserveCapacity(count)
        withUnsafeMutablePointer(to: &items) { pointer in
            _ = MHD_get_connection_values(
                connection, .GET_ARGUMENT_KIND,
                { context, _, key, value in
                    let items = context!.assumingMemoryBound(to: [QueryItem].self)
                    items.pointee.append(
                        QueryItem(name: key.map { String(cString: $0) } ?? "", value: value.map { String(cString: $0) })
                    )
                    return .YES
                }, UnsafeMutableRawPointer(pointer))
        }
        return items
    }
}

/// The running libmicrohttpd daemon.
///
/// Unchecked: only `HTTPServer` touches it, under its lock; the pointer never changes.
private struct Daemon: @unchecked Sendable {
    let pointer: OpaquePointer
}
