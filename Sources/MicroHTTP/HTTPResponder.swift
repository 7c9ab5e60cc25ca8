internal import CMicroHTTPD
import Platform
import Synchronization

/// One request's life on the server, and the handle a handler answers it with: the explicit
/// context libmicrohttpd keeps for the request (`*con_cls`), made when its request line arrives
/// and released when libmicrohttpd completes it.
///
/// `respond(_:)` may be called from any thread, once; later calls are ignored. Answering after the
/// handler returned resumes the suspended connection. A detached responder (`detached()`) has no
/// connection: what it is answered is kept for a test to read.
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
    let machine = Lock(ResponderStateMachine<Reply>())
    /// Unowned and unsafe: the server is only reached from libmicrohttpd's callbacks, which end
    /// before the server does. Kept for what it saves (bench/instructions, 2026-12-07, against
    /// `unowned` and `withServer` as `body(server!)`): GET 319 of 28,356 instructions, POST 509 of
    /// 62,101, 1,011 of 21,880 per long-poll waiter answered (`--only fanout`): a safe unowned
    /// reference retains and releases the server, a line every pool thread shares, per use.
    /// Nil: detached.
    unowned(unsafe) let server: HTTPServer?
    /// The connection (nil: detached).
    let connection: OpaquePointer?
    /// Where a detached responder's answer goes.
    let detachedAnswer: DetachedAnswer?
    /// The shard of the pool thread that serves the connection (`ThreadShard`), for the server's
    /// per-thread counts and lists.
    let shard = ThreadShard.current
    // The connection's thread only (see above).
    /// Where the responder is listed in `HTTPServer.suspended`, from its suspension to its answer.
    var listing: SuspendedResponders.Ticket?
    /// Whether the connection was ever suspended.
    var wasSuspended = false
    /// The connection's socket, looked up when it was suspended.
    var suspendedSocket: Int32 = -1
    /// What was queued, for the access record; a stream's bytes are counted by the stream.
    var sentStatus = 0
    var sentBytes = 0
    var streamed: HTTPStream?
    /// Whether libmicrohttpd has called the access handler for the request (its head is in).
    var started = false
    /// Whether the handler is running: only then may its request look headers up in libmicrohttpd
    /// (the request may be kept longer; afterwards its lookups answer nil).
    let lookupOpen = Atomic(false)

    /// The request line's method and (decoded) path, known from the first access call.
    var method = ""
    var path = ""
    /// The query as sent, undecoded, taken from the request line before libmicrohttpd parses it.
    var rawQuery: [UInt8] = []
    /// The query had more parameters than a request may carry.
    var tooManyParameters = false
    /// The authority of a request target in absolute form (`GET http://host:port/path`), which
    /// stands for the request's Host (RFC 9112 §3.2.2).
    var authority: String?
    var body = RequestBody()
    /// The most the body may hold: the server's `maxBodyBytes`, or what its head check allowed.
    var bodyLimit = 0
    var headers = RequestHeaders()
    /// When the request line arrived, for the access record and the durations (0 with neither).
    let began: Int64
    /// The route the request counts under in the server's `RequestDurations` (see `label(route:)`),
    /// and its method's place in `RequestDurations.methods`, found once from the request line
    /// (passing the method's string to the count would retain it).
    var route = 0
    /// Who made the request, as the access log names it (never a secret); set by the handler.
    var principal = ""
    var methodLabel = RequestDurations.methodCount - 1
    /// The first `Content-Encoding` that names a coding other than identity (`HeaderWalk`); last,
    /// so that the fields an answer reads keep their places (see the note on the order above).
    var contentCoding: String?

    init(server: HTTPServer, connection: OpaquePointer) {
        self.server = server
        self.connection = connection
        detachedAnswer = nil
        began = server.observer == nil && server.durations == nil ? 0 : MonotonicClock.nanoseconds()
    }

    private init(detached answer: DetachedAnswer) {
        server = nil
        connection = nil
        detachedAnswer = answer
        began = 0
    }

    /// Names the route the request counts under in the server's `RequestDurations`: an index
    /// into its `routes` (0, the default, for a request no route took). Call it in the handler.
    public func label(route: Int) {
        self.route = route
    }

    /// Names who made the request in its access record (`principal=`): an id, never a secret.
    public func label(principal: String) {
        self.principal = principal
    }

    /// Answers the request. Only the first answer counts.
    public func respond(_ response: HTTPResponse) {
        // One reference to the prepared answer, not three: a fan-out hands it to thousands of
        // responders while the pool threads queue and drop it, and each retain is a write to a
        // line they all share (docs/ARCHITECTURE.md, hot-path rules). Not `if let`: its binding
        // is a second reference, taken and dropped.
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
            resume()
            return true
        case .none, .runHandler, .queue, .suspend, .probe, .discard:
            return true
        }
    }

    /// Wakes the suspended connection to send its answer.
    @inline(__always)
    private func resume() {
        if let connection {
            MHD_resume_connection(connection)
        } else {
            detachedAnswer.unsafelyUnwrapped.resumed(self)
        }
    }

    /// Lets the server's sweep (`HTTPServer.reapDisconnected`) end this request if its client
    /// closes its side while the answer waits: for a reader waiting for a change, which would
    /// otherwise hold its connection until its wait is over. Call it in the handler.
    ///
    /// Other requests are never given up that way. A write waiting for its commit is answered when
    /// the commit is done, even to a client that has only half-closed (`shutdown(SHUT_WR)` looks
    /// like a close to the sweep's peek) and still reads its answer.
    ///
    /// MHD 0.9.75: when that answer comes within a millisecond or so of the suspend, libmicrohttpd
    /// may read the half-closed client's end of stream on resuming and close the connection
    /// unanswered. Nothing here prevents it (docs/BEHAVIOUR.md, "Readers").
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
        resume()
        return true
    }

    /// Whether an answer has been given (or the request is over).
    public var hasResponded: Bool { machine.withLock { $0.hasResponded } }

    // MARK: - Detached (tests)

    /// A responder with no connection, and where its answer goes: for tests that run a handler
    /// exactly as the server does, without a socket (see `DetachedAnswer.handle`).
    static func detached() -> (HTTPResponder, DetachedAnswer) {
        let answer = DetachedAnswer()
        return (HTTPResponder(detached: answer), answer)
    }
}
