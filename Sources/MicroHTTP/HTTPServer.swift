private import CMicroHTTPD
import Platform
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// How the server listens and what it allows.
public struct HTTPServerOptions: Sendable {
    /// An IPv4 or IPv6 literal, or `localhost`.
    public var host: String = "127.0.0.1"
    /// 0 picks a free port; `HTTPServer.port` tells which.
    public var port: Int = 8080
    /// Threads of libmicrohttpd's pool; each runs its own epoll loop.
    public var threads: Int = 2
    /// Bodies longer than this are answered 413 as soon as they pass it.
    public var maxBodyBytes: Int = 16 * 1024
    /// Connections open at once; 0 leaves libmicrohttpd's default (FD_SETSIZE − 4 per thread).
    public var connectionLimit: Int = 0
    /// Connections open at once from one address; 0 is no limit.
    public var connectionsPerClient: Int = 0
    /// Seconds a connection may stay idle; 0 is forever.
    public var connectionTimeout: Int = 0
    /// Whether `HTTPExchange.remoteAddress` is filled in for the observer (the access log).
    public var recordsAddresses: Bool = true
    /// Per-connection memory for headers and buffers; bounds the size of a request head.
    public var connectionMemoryLimit: Int = 0
    /// Headers sent with every response, the server's own refusals included (CORS headers that
    /// are the same for every request).
    public var responseHeaders: [Header] = []
    /// Headers for a response to a request that sends `Origin`, given its value (CORS with a list
    /// of origins, echoed one by one). Nil when none depends on it: `Origin` is then not looked up.
    public var originHeaders: (@Sendable (String) -> [Header])?

    public init() {}
}

public enum HTTPServerError: Error, Equatable, CustomStringConvertible {
    case invalidHost(String)
    case invalidPort(Int)
    case cannotStart(host: String, port: Int)

    public var description: String {
        switch self {
        case .invalidHost(let host): "not an IPv4 or IPv6 address: \(host)"
        case .invalidPort(let port): "not a port number: \(port)"
        case .cannotStart(let host, let port): "cannot listen on \(host):\(port) (in use, or not allowed)"
        }
    }
}

/// libmicrohttpd turned into `HTTPRequest -> HTTPResponse`.
///
/// The daemon runs an internal epoll loop on each thread of a pool; the handler runs on those
/// threads, so it must be quick and thread-safe. A handler may answer at once or keep the
/// `HTTPResponder` and answer later from any thread: the connection is then suspended, costing
/// no thread while it waits.
public final class HTTPServer: Sendable {
    public typealias Handler = @Sendable (HTTPRequest, HTTPResponder) -> Void
    public typealias ExchangeObserver = @Sendable (HTTPExchange) -> Void

    /// Bytes of an over-long body read and dropped before the connection is closed instead.
    static let discardLimit = 1 << 20

    let handler: Handler
    let observer: ExchangeObserver?
    let maxBodyBytes: Int
    private let daemon = Mutex<Daemon?>(nil)
    private let boundPort = Atomic<Int>(0)
    /// Requests between their first byte and their completion.
    let inFlight = Atomic<Int>(0)
    /// Set by `beginDraining`: requests that start from then on are refused.
    private let draining = Atomic(false)
    /// Whether the access log wants each peer's address (looked up as the request completes).
    let recordsAddresses: Bool
    let responseHeaders: [Header]
    let originHeaders: (@Sendable (String) -> [Header])?
    /// Responders waiting with a suspended connection, answered 503 when the server stops.
    let suspended = Mutex([ObjectIdentifier: HTTPResponder]())
    /// Streams being sent, ended when the server stops.
    let streams = Mutex([ObjectIdentifier: HTTPStream]())
    /// The port the server listens on.
    public var port: Int { boundPort.load(ordering: .relaxed) }

    public init(options: HTTPServerOptions, handler: @escaping Handler, observer: ExchangeObserver? = nil) throws {
        self.handler = handler
        self.observer = observer
        self.maxBodyBytes = options.maxBodyBytes
        self.recordsAddresses = options.recordsAddresses
        self.responseHeaders = options.responseHeaders
        self.originHeaders = options.originHeaders
        guard (0...65535).contains(options.port) else { throw HTTPServerError.invalidPort(options.port) }
        guard let address = SocketAddress(host: options.host, port: UInt16(options.port)) else {
            throw HTTPServerError.invalidHost(options.host)
        }

        var flags = MHD_USE_INTERNAL_POLLING_THREAD.rawValue | MHD_USE_EPOLL.rawValue
        flags |= MHD_ALLOW_SUSPEND_RESUME.rawValue | MHD_USE_ERROR_LOG.rawValue
        if address.isIPv6 { flags |= MHD_USE_IPv6.rawValue }
        var settings = overlayd_mhd_options()
        settings.flags = flags
        settings.thread_pool_size = UInt32(max(1, options.threads))
        settings.connection_limit = UInt32(max(0, options.connectionLimit))
        settings.connection_timeout = UInt32(max(0, options.connectionTimeout))
        settings.per_ip_connection_limit = UInt32(max(0, options.connectionsPerClient))
        settings.connection_memory_limit = max(0, options.connectionMemoryLimit)
        settings.handler = { context, connection, url, method, _, data, size, slot in
            // `_withUnsafeGuaranteedRef`: no retain and release of the shared server per call, which
            // two threads would otherwise fight over (the daemon never outlives the server).
            Unmanaged<HTTPServer>.fromOpaque(context!)._withUnsafeGuaranteedRef {
                $0.access(connection!, url: url, method: method, data: data, size: size!, slot: slot!)
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
            return address.withSockaddr { pointer, _ in
                settings.address = pointer
                return overlayd_mhd_start(&settings)
            }
        }
        guard let started else { throw HTTPServerError.cannotStart(host: options.host, port: options.port) }
        boundPort.store(Int(overlayd_mhd_bound_port(started)), ordering: .relaxed)
        daemon.withLock { $0 = Daemon(pointer: started) }
    }

    /// Closes the listening socket: no new connection is accepted; open ones go on. Idempotent.
    public func stopAccepting() {
        daemon.withLock { daemon in
            guard let running = daemon, !running.quiesced else { return }
            let listener = MHD_quiesce_daemon(running.pointer)
            if listener >= 0 { close(listener) }
            daemon?.quiesced = true
        }
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
        while inFlight.load(ordering: .relaxed) > 0 {
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
        let waiting = suspended.withLock { Array($0.values) }
        for stream in streams.withLock({ Array($0.values) }) {
            stream.end()
        }
        for responder in waiting {
            responder.respond(HTTPServer.stopping)
        }
        waitUntilIdle(grace: grace)
        MHD_stop_daemon(running)
    }

    /// Ends every parked reader (see `HTTPResponder.endIfClientLeaves`) and stream whose client
    /// has closed its connection, and returns how many. libmicrohttpd does not watch suspended
    /// connections, so without a sweep a reader that went away would hold its connection (against
    /// `connectionLimit` and the per-client limit) until its wait ended or its stream's next write
    /// failed. Cheap: one non-blocking peek per parked connection.
    @discardableResult
    public func reapDisconnected() -> Int {
        var reaped = 0
        for stream in streams.withLock({ Array($0.values) }) where stream.reapIfClientGone() { reaped += 1 }
        for responder in suspended.withLock({ Array($0.values) }) where responder.reapIfClientGone() { reaped += 1 }
        return reaped
    }

    /// The answer to a request the server will not finish because it is stopping.
    public static let stopping = HTTPResponse(
        status: 503,
        headers: [
            Header(name: "Content-Type", value: "application/json; charset=utf-8"),
            Header(name: "Retry-After", value: "1"),
        ],
        body: Array(#"{"error":{"code":"shutting_down","message":"the server is stopping"}}"#.utf8))

    deinit {
        stop(grace: 0)
    }

    // MARK: - libmicrohttpd callbacks

    /// Called by libmicrohttpd once when the request head has arrived, once per piece of body, and
    /// once at the end (size 0). The answer is given on that last call: answering on the first
    /// makes libmicrohttpd close the connection after the response (NOTES-libmicrohttpd.md).
    fileprivate func access(
        _ connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
        data: UnsafePointer<CChar>?, size: UnsafeMutablePointer<Int>,
        slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>
    ) -> MHD_Result {
        guard let existing = slot.pointee else {
            let exchange = HTTPResponder(
                server: self, connection: connection,
                method: method.map { String(cString: $0) } ?? "", path: url.map { String(cString: $0) } ?? "/")
            slot.pointee = Unmanaged.passRetained(exchange).toOpaque()
            inFlight.add(1, ordering: .relaxed)
            if draining.load(ordering: .acquiring) {
                // Answered on the first call: libmicrohttpd then closes the connection after it.
                return exchange.refuse(connection, HTTPServer.stopping)
            }
            if let problem = HTTPServer.framingProblem(connection) {
                return exchange.refuseFraming(connection, problem)
            }
            if let length = header(connection, "Content-Length").flatMap({ Int($0) }), length > maxBodyBytes {
                return exchange.refuseBody(connection)
            }
            return .YES
        }
        return Unmanaged<HTTPResponder>.fromOpaque(existing)._withUnsafeGuaranteedRef { exchange in
            continueRequest(exchange, connection, data: data, size: size)
        }
    }

    /// The later calls for one request: a piece of body, or its end.
    private func continueRequest(
        _ exchange: HTTPResponder, _ connection: OpaquePointer, data: UnsafePointer<CChar>?,
        size: UnsafeMutablePointer<Int>
    ) -> MHD_Result {
        if size.pointee > 0 {
            let count = size.pointee
            size.pointee = 0
            if exchange.bodyTooLarge {
                // Reading the rest is what lets the 413 be sent, but not forever: a client that
                // keeps sending well past the limit is cut off.
                exchange.discarded += count
                return exchange.discarded > HTTPServer.discardLimit ? .NO : .YES
            }
            if exchange.body.count + count > maxBodyBytes {
                // Mid-body (a chunked upload) libmicrohttpd 0.9.75 refuses to queue a response, so a
                // 413 queued here is lost and the client sees the connection close without an
                // answer: drop the rest of the body and answer 413 when it ends.
                exchange.bodyTooLarge = true
                exchange.body = []
                return .YES
            }
            if let data {
                data.withMemoryRebound(to: UInt8.self, capacity: count) {
                    exchange.body.append(contentsOf: UnsafeBufferPointer(start: $0, count: count))
                }
            }
            return .YES
        }
        return exchange.requestEnded(connection)
    }

    /// Why a request's body cannot be delimited safely, if it cannot (RFC 9112 §6.3): Content-Length
    /// headers that disagree, or Content-Length beside Transfer-Encoding. libmicrohttpd takes the
    /// first length, or the chunked coding, and keeps the connection open; a proxy in front that
    /// read the other length would see another request start in the body (request smuggling).
    static func framingProblem(_ connection: OpaquePointer) -> String? {
        switch overlayd_mhd_framing_problem(connection) {
        case 1: "conflicting Content-Length headers"
        case 2: "both Content-Length and Transfer-Encoding"
        default: nil
        }
    }

    fileprivate func completed(_ connection: OpaquePointer?, slot: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
        guard let slot, let existing = slot.pointee else { return }
        slot.pointee = nil
        let exchange = Unmanaged<HTTPResponder>.fromOpaque(existing).takeRetainedValue()
        let (status, bytes) = exchange.finish()
        inFlight.subtract(1, ordering: .relaxed)
        if exchange.wasSuspended {
            suspended.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(exchange)) }
        }
        if let observer {
            if recordsAddresses { exchange.recordAddress(connection) }
            observer(exchange.record(status: status, bytes: bytes))
        }
    }

    /// The request for the handler. Headers and the peer's address are looked up on demand (most
    /// requests need one or two headers, and only writes need the address), which is only possible
    /// while the handler runs: `lookup` is closed when it returns.
    func makeRequest(_ exchange: HTTPResponder, _ connection: OpaquePointer) -> HTTPRequest {
        let query =
            MHD_get_connection_values(connection, .GET_ARGUMENT_KIND, nil, nil) == 0
            ? [] : values(connection, .GET_ARGUMENT_KIND).map { QueryItem(name: $0.0, value: $0.1) }
        return HTTPRequest(
            method: exchange.method, path: exchange.path, query: query, body: exchange.body,
            bodyTooLarge: exchange.bodyTooLarge, lookup: exchange)
    }

    private func header(_ connection: OpaquePointer, _ name: String) -> String? {
        withCString(name) { MHD_lookup_connection_value(connection, .HEADER_KIND, $0) }.map { String(cString: $0) }
    }

    private func values(_ connection: OpaquePointer, _ kind: MHD_ValueKind) -> [(String, String?)] {
        final class Collector {
            var items: [(String, String?)] = []
        }
        let collector = Collector()
        _ = withExtendedLifetime(collector) {
            MHD_get_connection_values(
                connection, kind,
                { context, _, key, value in
                    let collector = Unmanaged<Collector>.fromOpaque(context!).takeUnretainedValue()
                    collector.items.append((key.map { String(cString: $0) } ?? "", value.map { String(cString: $0) }))
                    return .YES
                }, Unmanaged.passUnretained(collector).toOpaque())
        }
        return collector.items
    }
}

/// The running libmicrohttpd daemon; only `HTTPServer` touches it, under its lock.
private struct Daemon: @unchecked Sendable {
    let pointer: OpaquePointer
    var quiesced = false
}

/// One request's life on the server, and the handle a handler answers it with.
///
/// `respond(_:)` may be called from any thread, once; later calls are ignored. Answering after the
/// handler returned resumes the suspended connection.
public final class HTTPResponder: @unchecked Sendable {
    // Written only by libmicrohttpd's thread for this connection, before the handler runs.
    fileprivate let method: String
    fileprivate let path: String
    fileprivate var body: [UInt8] = []
    fileprivate var bodyTooLarge = false
    fileprivate var discarded = 0
    fileprivate var remoteAddress = ""
    /// Whether the connection was ever suspended (and so listed in `HTTPServer.suspended`).
    fileprivate var wasSuspended = false
    /// Set by `endIfClientLeaves()`, in the handler; read by the sweep under the state lock once
    /// the connection is suspended (which happens under that lock after the handler returned).
    private var endsIfClientLeaves = false
    /// Whether the handler is running: only then may its request look headers up in libmicrohttpd
    /// (the request may be kept longer; afterwards its lookups answer nil).
    private let lookupOpen = Atomic(false)
    private let started = MonotonicClock.nanoseconds()
    /// Unowned and unsafe: the server is only reached from libmicrohttpd's callbacks, which end
    /// before the server does, and a safe unowned reference costs an atomic per use.
    private unowned(unsafe) let server: HTTPServer
    private let connection: OpaquePointer

    private enum State {
        /// The handler has not answered yet and the connection is not suspended.
        case handling
        /// The handler returned without answering; the connection waits, suspended.
        case suspended
        /// An answer is ready to be queued.
        case ready(Reply)
        /// The answer went to libmicrohttpd (status and bytes recorded).
        case sent(status: Int, bytes: Int)
        /// libmicrohttpd completed the request; the connection must not be touched again.
        case finished(status: Int, bytes: Int)
    }

    private enum Reply {
        case full(HTTPResponse)
        case stream(status: Int, headers: [Header], HTTPStream)
    }

    private let state = Mutex(State.handling)
    /// The stream this request answers with, once it has one (for the byte count in the log).
    private let streamed = Mutex<HTTPStream?>(nil)

    fileprivate init(server: HTTPServer, connection: OpaquePointer, method: String, path: String) {
        self.server = server
        self.connection = connection
        self.method = method
        self.path = path
    }

    /// Answers the request. Only the first answer counts.
    public func respond(_ response: HTTPResponse) {
        answer(.full(response))
    }

    /// Answers with a body of unknown length that the caller writes as it goes (Server-Sent
    /// Events); the response is sent chunked. Returns nil if the request was already answered.
    public func stream(status: Int = 200, headers: [Header]) -> HTTPStream? {
        let stream = HTTPStream(connection: connection)
        return answer(.stream(status: status, headers: headers, stream)) ? stream : nil
    }

    @discardableResult
    private func answer(_ reply: Reply) -> Bool {
        let (accepted, resume) = state.withLock { state -> (Bool, Bool) in
            switch state {
            case .handling:
                state = .ready(reply)
                return (true, false)
            case .suspended:
                state = .ready(reply)
                return (true, true)
            case .ready, .sent, .finished:
                return (false, false)
            }
        }
        if resume { MHD_resume_connection(connection) }
        return accepted
    }

    /// Lets the server's sweep (`HTTPServer.reapDisconnected`) end this request if its client
    /// closes its side while the answer waits: for a reader waiting for a change, which would
    /// otherwise hold its connection until its wait is over. Call it in the handler.
    ///
    /// Other requests are never given up that way. A write waiting for its commit is answered when
    /// the commit is done, even to a client that has only half-closed (`shutdown(SHUT_WR)` looks
    /// like a close to the sweep's peek) and still reads its answer.
    public func endIfClientLeaves() {
        endsIfClientLeaves = true
    }

    /// For the server's sweep: a parked reader whose client has gone is answered (499, as nginx
    /// logs it; nobody reads it) so that libmicrohttpd wakes it and closes the connection.
    fileprivate func reapIfClientGone() -> Bool {
        let resume = state.withLock { state -> Bool in
            guard case .suspended = state, endsIfClientLeaves, peerHasClosed(connection) else { return false }
            state = .ready(.full(HTTPResponse(status: 499)))
            return true
        }
        if resume { MHD_resume_connection(connection) }
        return resume
    }

    /// Whether an answer has been given (or the request is over).
    public var hasResponded: Bool {
        state.withLock {
            if case .handling = $0 { return false }
            if case .suspended = $0 { return false }
            return true
        }
    }

    fileprivate func requestEnded(_ connection: OpaquePointer) -> MHD_Result {
        let handled = state.withLock { state -> Bool in
            if case .handling = state { return false }
            return true
        }
        if !handled {
            if bodyTooLarge { return refuseBody(connection) }
            lookupOpen.store(true, ordering: .releasing)
            server.handler(server.makeRequest(self, connection), self)
            lookupOpen.store(false, ordering: .releasing)
        }
        // Suspend while holding the state lock, so that a respond() from another thread either
        // sees `.ready` queued here or finds the connection already suspended and resumes it.
        let ready: Reply? = state.withLock { state in
            switch state {
            case .ready:
                // The reply is moved out of the state, not copied (a copy retains what it holds).
                var taken = State.handling
                swap(&taken, &state)
                guard case .ready(let reply) = consume taken else { return nil }
                switch reply {
                case .full(let response): state = .sent(status: response.status, bytes: response.body.count)
                case .stream(let status, _, _): state = .sent(status: status, bytes: 0)
                }
                return reply
            case .handling:
                MHD_suspend_connection(connection)
                state = .suspended
                wasSuspended = true
                server.suspended.withLock { $0[ObjectIdentifier(self)] = self }
                return nil
            case .suspended, .sent, .finished:
                return nil
            }
        }
        guard let ready else { return .YES }
        if wasSuspended { server.suspended.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(self)) } }
        switch ready {
        case .full(let response):
            return queue(response, on: connection)
        case .stream(let status, let headers, let stream):
            // libmicrohttpd 0.9.75 sends a chunked body's last chunk ("0\r\n\r\n") even to HEAD,
            // which a keep-alive client reads as the start of the next response: HEAD gets the head
            // alone, and the stream is over before it began.
            if method == "HEAD" {
                stream.released()
                return queue(HTTPResponse(status: status, headers: headers), on: connection)
            }
            return queue(stream, status: status, headers: headers, on: connection)
        }
    }

    /// Answers at once, before any body (libmicrohttpd then closes the connection). Whatever
    /// body still comes is dropped.
    fileprivate func refuse(_ connection: OpaquePointer, _ response: HTTPResponse) -> MHD_Result {
        bodyTooLarge = true
        body = []
        state.withLock { $0 = .sent(status: response.status, bytes: response.body.count) }
        return queue(response, on: connection)
    }

    /// A body over the limit: answer 413 now; libmicrohttpd discards the rest and closes.
    fileprivate func refuseBody(_ connection: OpaquePointer) -> MHD_Result {
        refuse(
            connection,
            HTTPResponse(
                status: 413,
                headers: [Header(name: "Content-Type", value: "application/json; charset=utf-8")],
                body: Array(
                    #"{"error":{"code":"payload_too_large","message":"the body is over \#(server.maxBodyBytes) bytes"}}"#
                        .utf8)))
    }

    /// A request whose body has no single length: answer 400 now, so that libmicrohttpd closes
    /// the connection after it instead of reading on from a place a proxy may disagree with.
    fileprivate func refuseFraming(_ connection: OpaquePointer, _ problem: String) -> MHD_Result {
        refuse(
            connection,
            HTTPResponse(
                status: 400,
                headers: [Header(name: "Content-Type", value: "application/json; charset=utf-8")],
                body: Array(
                    #"{"error":{"code":"bad_request","message":"the body's length is ambiguous: \#(problem)"}}"#.utf8)))
    }

    private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        let perOrigin = originHeaders(connection)
        // A prepared response is shared by every connection that sends it: headers for one
        // request's origin cannot go into it, so such an answer is built afresh.
        if let prepared = response.prepared, perOrigin.isEmpty,
            let pointer = prepared.pointer(adding: server.responseHeaders)
        {
            // libmicrohttpd counts the connections using it; ours is released when the last
            // HTTPResponse holding it goes.
            return MHD_queue_response(connection, UInt32(response.status), pointer)
        }
        let created = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        return queue(created, status: response.status, headers: response.headers, perOrigin, on: connection)
    }

    /// A streamed body: libmicrohttpd pulls it through `HTTPStream.read`, and releases the stream
    /// (its retain, taken here) when the response is destroyed.
    private func queue(
        _ stream: HTTPStream, status: Int, headers: [Header], on connection: OpaquePointer
    ) -> MHD_Result {
        streamed.withLock { $0 = stream }
        server.streams.withLock { $0[ObjectIdentifier(stream)] = stream }
        let created = MHD_create_response_from_callback(
            UInt64.max, 4096,
            { context, _, buffer, size in
                Unmanaged<HTTPStream>.fromOpaque(context!).takeUnretainedValue().read(into: buffer!, capacity: size)
            },
            Unmanaged.passRetained(stream).toOpaque(),
            { context in
                Unmanaged<HTTPStream>.fromOpaque(context!).takeRetainedValue().released()
            })
        return queue(created, status: status, headers: headers, originHeaders(connection), on: connection)
    }

    /// Queues a response built for this connection, with the server's headers and `perOrigin` added.
    private func queue(
        _ created: OpaquePointer?, status: Int, headers: [Header], _ perOrigin: [Header],
        on connection: OpaquePointer
    ) -> MHD_Result {
        guard let created else { return .NO }
        addHeaders(headers, to: created)
        addHeaders(server.responseHeaders, to: created)
        addHeaders(perOrigin, to: created)
        let result = MHD_queue_response(connection, UInt32(status), created)
        MHD_destroy_response(created)
        return result
    }

    /// The server's headers for this request's `Origin` (none without one, or when none depend
    /// on it). Looked up when the answer is queued: the server's own refusals get them too.
    private func originHeaders(_ connection: OpaquePointer) -> [Header] {
        guard let headersFor = server.originHeaders,
            let origin = withCString("Origin", { MHD_lookup_connection_value(connection, .HEADER_KIND, $0) })
        else { return [] }
        return headersFor(String(cString: origin))
    }

    /// The first header with this name, while the handler runs (libmicrohttpd compares header
    /// names without regard to case).
    func header(_ name: String) -> String? {
        guard lookupOpen.load(ordering: .acquiring) else { return nil }
        return withCString(name) { MHD_lookup_connection_value(connection, .HEADER_KIND, $0) }.map {
            String(cString: $0)
        }
    }

    /// The peer's address while the handler runs ("" afterwards).
    var lookedUpAddress: String {
        guard lookupOpen.load(ordering: .acquiring) else { return "" }
        return address(connection)
    }

    /// The peer's address as text, looked up once (the connection must be alive).
    fileprivate func address(_ connection: OpaquePointer) -> String {
        if remoteAddress.isEmpty {
            var address = [CChar](repeating: 0, count: 64)
            overlayd_mhd_client_address(connection, &address, address.count)
            remoteAddress = String(decoding: address.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        }
        return remoteAddress
    }

    fileprivate func recordAddress(_ connection: OpaquePointer?) {
        if let connection { _ = address(connection) }
    }

    /// libmicrohttpd is done with the request: returns the status and body bytes that were sent
    /// (0 and 0 when nothing was).
    fileprivate func finish() -> (status: Int, bytes: Int) {
        let stream = streamed.withLock { $0 }
        var streamedBytes: Int? = nil
        if let stream {
            streamedBytes = stream.bytesSent
            server.streams.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(stream)) }
        }
        return state.withLock { state in
            switch state {
            case .sent(let status, let bytes): state = .finished(status: status, bytes: streamedBytes ?? bytes)
            case .handling, .suspended, .ready: state = .finished(status: 0, bytes: 0)
            case .finished: break
            }
            if case .finished(let status, let bytes) = state { return (status, bytes) }
            return (0, 0)
        }
    }

    fileprivate func record(status: Int, bytes: Int) -> HTTPExchange {
        HTTPExchange(
            method: method, path: path, status: status, bytes: bytes,
            microseconds: (MonotonicClock.nanoseconds() - started) / 1000, remoteAddress: remoteAddress)
    }
}

/// A response built once in libmicrohttpd and queued on many connections.
///
/// Built when it is first sent, with the sending server's `responseHeaders` added: a prepared
/// response belongs to one server (the first to send it).
final class PreparedResponse: Sendable {
    private let headers: [Header]
    private let body: [UInt8]
    /// The libmicrohttpd response's address once built (0 before): read with one atomic load.
    private let built = Atomic<Int>(0)

    init(_ response: HTTPResponse) {
        headers = response.headers
        body = response.body
    }

    /// The built response, building it on the first call. Two threads that race here both build;
    /// one keeps its response and the other destroys its own.
    func pointer(adding serverHeaders: [Header]) -> OpaquePointer? {
        if let existing = OpaquePointer(bitPattern: built.load(ordering: .acquiring)) { return existing }
        let created = body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let created else { return nil }
        addHeaders(headers, to: created)
        addHeaders(serverHeaders, to: created)
        let (stored, winner) = built.compareExchange(
            expected: 0, desired: Int(bitPattern: created), ordering: .acquiringAndReleasing)
        if stored { return created }
        MHD_destroy_response(created)
        return OpaquePointer(bitPattern: winner)
    }

    deinit {
        if let pointer = OpaquePointer(bitPattern: built.load(ordering: .acquiring)) { MHD_destroy_response(pointer) }
    }
}

/// Copies the headers into a libmicrohttpd response (their C strings are made once, with them).
private func addHeaders(_ headers: [Header], to response: OpaquePointer) {
    for header in headers {
        header.cName.withUnsafeBufferPointer { name in
            header.cValue.withUnsafeBufferPointer { value in
                _ = MHD_add_response_header(response, name.baseAddress, value.baseAddress)
            }
        }
    }
}

/// Whether the client has closed its side (or reset the connection): a peek reads end of file or
/// an error other than "nothing yet". Bytes it sent stay for libmicrohttpd to read. Only for a
/// connection libmicrohttpd is not using at the moment (suspended, or inside its own callback).
func peerHasClosed(_ connection: OpaquePointer) -> Bool {
    let socket = overlayd_mhd_connection_fd(connection)
    guard socket >= 0 else { return false }
    var byte: UInt8 = 0
    let count = recv(socket, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
    return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
}
