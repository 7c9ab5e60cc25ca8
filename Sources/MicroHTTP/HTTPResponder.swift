internal import CMicroHTTPD
import Platform
import Synchronization

/// One request's life on the server, and the handle a handler answers it with.
///
/// `respond(_:)` may be called from any thread, once; later calls are ignored. Answering after the
/// handler returned resumes the suspended connection.
///
/// Unchecked: the answer's state is a `ResponderStateMachine` behind `machine`'s lock; every other
/// mutable field is touched only by the libmicrohttpd thread that serves this connection (a pool
/// thread keeps its connections for life), and the rest never changes.
public final class HTTPResponder: @unchecked Sendable {
    enum Reply {
        case full(HTTPResponse)
        /// A response built once for many connections (`HTTPResponse.prepare()`), carried as its
        /// one shared object.
        case prepared(status: Int, PreparedResponse)
        case stream(status: Int, headers: [Header], HTTPStream)
    }

    // Stored in the order an answer after a suspension reads them: a fan-out answers thousands of
    // responders whose memory has gone cold, and each cache line it touches is a miss.
    private let machine = Mutex(ResponderStateMachine<Reply>())
    /// Unowned and unsafe: the server is only reached from libmicrohttpd's callbacks, which end
    /// before the server does, and a safe unowned reference costs an atomic per use.
    private unowned(unsafe) let server: HTTPServer
    let connection: OpaquePointer
    /// The shard of the pool thread that serves the connection (`ThreadShard`), for the server's
    /// per-thread counts and lists.
    let shard = ThreadShard.current
    // The connection's thread only (see above).
    /// Where the responder is listed in `HTTPServer.suspended`, from its suspension to its answer.
    private var listing: SuspendedResponders.Ticket?
    /// Whether the connection was ever suspended.
    private(set) var wasSuspended = false
    /// Read on every call of the access handler, the one after a resume too (so kept up here).
    private(set) var bodyTooLarge = false
    /// The connection's socket, looked up when it was suspended.
    private var suspendedSocket: Int32 = -1
    /// What was queued, for the access record; a stream's bytes are counted by the stream.
    private var sentStatus = 0
    private var sentBytes = 0
    private var streamed: HTTPStream?
    /// Whether the handler is running: only then may its request look headers up in libmicrohttpd
    /// (the request may be kept longer; afterwards its lookups answer nil).
    let lookupOpen = Atomic(false)

    let method: String
    let path: String
    private(set) var body: [UInt8] = []
    /// Bytes of an over-long body read and dropped so far.
    private var discarded = 0
    /// Where a chunked body starts in libmicrohttpd's buffer, for reading its chunk sizes.
    private var chunkedBodyStart: UnsafePointer<CChar>?
    /// The common headers, found when the head was judged (`headJudged`); until then, none.
    private var known: KnownHeaders?
    private(set) var remoteAddress = ""
    /// When the request began, for the access record (0 without one).
    private let started: Int64

    init(server: HTTPServer, connection: OpaquePointer, method: String, path: String) {
        self.server = server
        self.connection = connection
        self.method = method
        self.path = path
        started = server.observer == nil ? 0 : MonotonicClock.nanoseconds()
    }

    /// Answers the request. Only the first answer counts.
    public func respond(_ response: HTTPResponse) {
        // A fan-out hands one prepared answer to thousands of responders from one thread while
        // the pool threads queue and drop it: every reference taken or dropped is a write to a
        // line they all share, so it travels as one reference rather than three.
        // (Not `if let`: its binding is a second reference, taken and dropped.)
        if response.prepared != nil {
            answer(.prepared(status: response.status, response.prepared.unsafelyUnwrapped))
        } else {
            answer(.full(response))
        }
    }

    /// Answers with a body of unknown length that the caller writes as it goes (Server-Sent
    /// Events); the response is sent chunked. Returns nil if the request was already answered.
    public func stream(status: Int = 200, headers: [Header]) -> HTTPStream? {
        let stream = HTTPStream(connection: connection)
        return answer(.stream(status: status, headers: headers, stream)) ? stream : nil
    }

    @discardableResult
    private func answer(_ reply: consuming Reply) -> Bool {
        // Moved into the state: a copy of a prepared answer writes the line of its reference count.
        var moving = Optional(reply)
        switch machine.withLock({ $0.replyArrived(moving.take()!) }) {
        case .rejectReply:
            return false
        case .resume:
            MHD_resume_connection(connection)
            return true
        case .none, .runHandler, .queue, .suspend, .probe, .discard:
            return true
        }
    }

    /// Lets the server's sweep (`HTTPServer.reapDisconnected`) end this request if its client
    /// closes its side while the answer waits: for a reader waiting for a change, which would
    /// otherwise hold its connection until its wait is over. Call it in the handler.
    ///
    /// Other requests are never given up that way. A write waiting for its commit is answered when
    /// the commit is done, even to a client that has only half-closed (`shutdown(SHUT_WR)` looks
    /// like a close to the sweep's peek) and still reads its answer. (The sweep never ends it;
    /// libmicrohttpd itself may, when the answer comes right after the suspend: BEHAVIOUR.md.)
    public func endIfClientLeaves() {
        machine.withLock { $0.endIfClientLeaves() }
    }

    /// For the server's sweep: a parked reader whose client has gone is answered (499, as nginx
    /// logs it; nobody reads it) so that libmicrohttpd wakes it and closes the connection.
    func sweepProbe() -> Int32? {
        guard case .probe(let socket) = machine.withLock({ $0.sweep() }) else { return nil }
        return socket
    }

    /// The sweep found the client behind `sweepProbe()`'s socket gone: ends the request, unless it
    /// is no longer parked. Returns whether it ended it.
    func reapClientGone() -> Bool {
        guard case .resume = machine.withLock({ $0.clientGone(answer: .full(HTTPResponse(status: 499))) }) else {
            return false
        }
        MHD_resume_connection(connection)
        return true
    }

    /// Whether an answer has been given (or the request is over).
    public var hasResponded: Bool { machine.withLock { $0.hasResponded } }

    // MARK: - On the connection's thread

    /// The head has been judged and passed: keeps where its common headers are, and where a
    /// chunked body starts in libmicrohttpd's buffer.
    func headJudged(_ head: overlayd_head) {
        known = KnownHeaders(head.known)
        if head.chunked != 0 { chunkedBodyStart = head.body_start }
    }

    /// A piece of the body. Past the limit the body is dropped and the request answered 413
    /// once it ends.
    func bodyArrived(_ data: UnsafePointer<CChar>?, count: Int) -> Bool {
        if let chunkedBodyStart {
            // A chunk announcing more than would ever be read (the limit, then the drain below) is
            // cut off at once rather than after the limit's worth arrives. libmicrohttpd 0.9.75
            // cannot queue an answer in the middle of a body, so it is a close, not a 413.
            let announced = overlayd_chunk_size_before(chunkedBodyStart, data)
            if announced > server.maxBodyBytes + HTTPServer.discardLimit { return false }
        }
        if bodyTooLarge {
            // Reading the rest is what lets the 413 be sent, but not forever: a client that
            // keeps sending well past the limit is cut off.
            discarded += count
            return discarded <= HTTPServer.discardLimit
        }
        if body.count + count > server.maxBodyBytes {
            // Mid-body (a chunked upload) libmicrohttpd 0.9.75 refuses to queue a response, so a
            // 413 queued here is lost and the client sees the connection close without an
            // answer: drop the rest of the body and answer 413 when it ends.
            bodyTooLarge = true
            body = []
            return true
        }
        if let data {
            data.withMemoryRebound(to: UInt8.self, capacity: count) {
                body.append(contentsOf: UnsafeBufferPointer(start: $0, count: count))
            }
        }
        return true
    }

    /// libmicrohttpd's last call for the request (all of it has arrived), or its call after a
    /// resume: runs the handler the first time, queues the answer once there is one.
    func requestReceived(_ connection: OpaquePointer) -> Bool {
        if bodyTooLarge { return refuse(connection, .bodyTooLarge(limit: server.maxBodyBytes)) }
        let action = machine.withLock { $0.requestReceived() }
        guard case .runHandler = action else { return perform(action, connection) }
        lookupOpen.store(true, ordering: .releasing)
        server.handler(server.makeRequest(self, connection), self)
        lookupOpen.store(false, ordering: .releasing)
        return perform(machine.withLock { $0.handlerReturned() }, connection)
    }

    private func perform(_ action: ResponderStateMachine<Reply>.Action, _ connection: OpaquePointer) -> Bool {
        switch action {
        case .queue(let reply):
            return queue(reply, on: connection) == .YES
        case .suspend:
            wasSuspended = true
            listing = withServer { $0.suspended.list(self, shard: shard) }
            let socket = ClientSocket.descriptor(of: connection)
            suspendedSocket = socket
            MHD_suspend_connection(connection)
            if case .resume = machine.withLock({ $0.suspendCompleted(socket: socket) }) {
                MHD_resume_connection(connection)
            }
            return true
        case .none, .runHandler, .resume, .rejectReply, .probe, .discard:
            return true
        }
    }

    /// Answers at once, before the handler; whatever body still comes is dropped. Answered on
    /// the first call, libmicrohttpd closes the connection after it.
    func refuse(_ connection: OpaquePointer, _ refusal: HTTPRefusal) -> Bool {
        bodyTooLarge = true
        body = []
        return perform(machine.withLock { $0.refused(.full(server.refusals(refusal))) }, connection)
    }

    private func queue(_ reply: Reply, on connection: OpaquePointer) -> MHD_Result {
        unlist()
        switch reply {
        case .full(let response):
            sentStatus = response.status
            sentBytes = response.body.count
            return queue(response, on: connection)
        case .prepared(let status, let prepared):
            sentStatus = status
            sentBytes = prepared.body.count
            return queue(prepared, status: status, on: connection)
        case .stream(let status, let headers, let stream):
            sentStatus = status
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

    private func queue(_ response: HTTPResponse, on connection: OpaquePointer) -> MHD_Result {
        if let prepared = response.prepared { return queue(prepared, status: response.status, on: connection) }
        return queue(status: response.status, headers: response.headers, body: response.body, on: connection)
    }

    private func queue(_ prepared: PreparedResponse, status: Int, on connection: OpaquePointer) -> MHD_Result {
        let perOrigin = originHeaders(connection)
        // A prepared response is shared by every connection that sends it: headers for one
        // request's origin cannot go into it, so such an answer is built afresh.
        // Built already (the usual case): the server's shared header list is not even retained.
        if perOrigin.isEmpty, let pointer = prepared.built ?? prepared.pointer(adding: server.responseHeaders) {
            // libmicrohttpd counts the connections using it; ours is released with the
            // PreparedResponse.
            return MHD_queue_response(connection, UInt32(status), pointer)
        }
        return queue(status: status, headers: prepared.headers, body: prepared.body, perOrigin, on: connection)
    }

    /// Builds the response for this connection and queues it.
    private func queue(
        status: Int, headers: [Header], body: [UInt8], _ perOrigin: [Header]? = nil, on connection: OpaquePointer
    ) -> MHD_Result {
        let created = body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        return queue(created, status: status, headers: headers, perOrigin ?? originHeaders(connection), on: connection)
    }

    /// A streamed body: libmicrohttpd pulls it through `HTTPStream.read`, and releases the stream
    /// (its retain, taken here) when the response is destroyed.
    private func queue(
        _ stream: HTTPStream, status: Int, headers: [Header], on connection: OpaquePointer
    ) -> MHD_Result {
        streamed = stream
        server.streams.withLock { $0[ObjectIdentifier(stream)] = stream }
        if server.streamSendBufferBytes > 0 {
            ClientSocket.limitSendBuffer(ClientSocket.descriptor(of: connection), to: server.streamSendBufferBytes)
        }
        // The block is libmicrohttpd's own buffer per response, used only when the body is not
        // chunked (an HTTP/1.0 client); a chunked stream is written into the connection's pool.
        // 512 bytes rather than 4 KiB: every idle stream keeps one.
        let created = MHD_create_response_from_callback(
            UInt64.max, 512,
            { context, _, buffer, size in
                // libmicrohttpd holds the stream (released below): no reference taken per call.
                Unmanaged<HTTPStream>.fromOpaque(context!)._withUnsafeGuaranteedRef {
                    $0.read(into: buffer!, capacity: size)
                }
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
        Header.add(headers, to: created)
        Header.add(server.responseHeaders, to: created)
        Header.add(perOrigin, to: created)
        let result = MHD_queue_response(connection, UInt32(status), created)
        MHD_destroy_response(created)
        return result
    }

    /// The server's headers for this request's `Origin` (none without one, or when none depend
    /// on it). Looked up when the answer is queued: the server's own refusals get them too. Under
    /// the default policy no header depends on the origin, and the request's headers are not read.
    private func originHeaders(_ connection: OpaquePointer) -> [Header] {
        guard server.variesByOrigin,
            let origin = lookUp("Origin", { $0.map { String(decoding: $0, as: UTF8.self) } }),
            let headersFor = server.originHeaders
        else { return [] }
        return headersFor(origin)
    }

    /// The first header with this name, while the handler runs (libmicrohttpd compares header
    /// names without regard to case): its bytes up to any NUL, or nil.
    func withHeader<Result>(_ name: String, _ body: (UnsafeRawBufferPointer?) -> Result) -> Result {
        guard lookupOpen.load(ordering: .acquiring) else { return body(nil) }
        return lookUp(name, body)
    }

    /// `withHeader` at any time the connection's request is alive. The common headers were found
    /// when the head was judged (`headJudged`); the rest, and every header of a request refused
    /// before that, are looked up in libmicrohttpd.
    private func lookUp<Result>(_ name: String, _ body: (UnsafeRawBufferPointer?) -> Result) -> Result {
        if let known, let value = known.value(named: name) { return body(value) }
        guard let value = withCString(name, { MHD_lookup_connection_value(connection, .HEADER_KIND, $0) }) else {
            return body(nil)
        }
        return body(UnsafeRawBufferPointer(start: value, count: strlen(value)))
    }

    /// The peer's address while the handler runs ("" afterwards).
    var lookedUpAddress: String {
        guard lookupOpen.load(ordering: .acquiring) else { return "" }
        return address(connection)
    }

    /// The peer's address as text, looked up once (the connection must be alive).
    private func address(_ connection: OpaquePointer) -> String {
        if remoteAddress.isEmpty {
            remoteAddress = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
                let count = overlayd_mhd_client_address(connection, buffer.baseAddress!, buffer.count)
                return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress, count: count), as: UTF8.self)
            }
        }
        return remoteAddress
    }

    func recordAddress(_ connection: OpaquePointer?) {
        if let connection { _ = address(connection) }
    }

    /// libmicrohttpd is done with the request: the status and body bytes that were sent (0 and 0
    /// when nothing was).
    func finish() -> (status: Int, bytes: Int) {
        if case .discard(.stream(_, _, let stream)) = machine.withLock({ $0.requestCompleted() }) {
            // Never handed to libmicrohttpd, which would have released it: its writer must learn
            // that it is over.
            stream.released()
        }
        guard let streamed else {
            // Its next request may be one libmicrohttpd's epoll loop leaves unread.
            if wasSuspended { withServer { $0.resumeWatch.watch(suspendedSocket, shard: shard) } }
            return (sentStatus, sentBytes)
        }
        server.streams.withLock { _ = $0.removeValue(forKey: ObjectIdentifier(streamed)) }
        return (sentStatus, streamed.bytesSent)
    }

    /// Takes the responder off `HTTPServer.suspended`: it has its answer, or the request is over.
    func unlist() {
        guard let listing else { return }
        withServer { $0.suspended.unlist(listing) }
        self.listing = nil
    }

    /// The server, borrowed, so that what is reached through it is not retained either: its
    /// shared objects' reference counts would be lines every answer writes.
    @inline(__always)
    private func withServer<Result>(_ body: (HTTPServer) -> Result) -> Result {
        Unmanaged.passUnretained(server)._withUnsafeGuaranteedRef(body)
    }

    func record(status: Int, bytes: Int) -> AccessRecord {
        AccessRecord(
            method: method, path: path, status: status, bytes: bytes,
            microseconds: (MonotonicClock.nanoseconds() - started) / 1000, remoteAddress: remoteAddress)
    }
}
