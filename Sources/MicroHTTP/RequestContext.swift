internal import CMicroHTTPD
import Platform
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The request a connection is serving, as its thread keeps it: the explicit context libmicrohttpd
/// holds for each request (`*con_cls`). One per connection, made when it starts and released when
/// it closes: begun again by each request line (`begin`), cleared at each completion (`clear`),
/// so that a request on a kept-alive connection allocates no context of its own. A pool thread
/// serves its connections for life, so nothing here is shared: not Sendable, and reached only
/// from that thread's callbacks. What other threads touch is the `responder` (the answer) and,
/// while the handler runs, the headers through `ConnectionHeaders`.
///
/// It holds the request as it arrives (method, path, query, headers, body, limits); its
/// `ReplyDriver` carries out the responder's machine on the connection, and its `RequestTally`
/// what is counted and logged.
final class RequestContext {
    /// Unowned and unsafe: the server is only reached from libmicrohttpd's callbacks, which end
    /// before the server does. Kept for what it saves (bench/instructions, 2026-12-06, against
    /// `unowned` and `withServer` as `body(server!)`): GET 319 of 28,356 instructions, POST 509 of
    /// 62,101, 1,011 of 21,880 per long-poll waiter answered (`--only fanout`): a safe unowned
    /// reference retains and releases the server, a line every pool thread shares, per use.
    unowned(unsafe) let server: HTTPServer
    let connection: OpaquePointer
    /// The answer, which the handler and any thread give through it: one per request, made when
    /// its request line arrives (the first request's with the context), or the last request's
    /// made new again when nothing else holds it.
    private(set) var responder: HTTPResponder
    /// The shard of the pool thread that serves the connection (`ThreadShard`), for the server's
    /// per-thread counts and lists; known from the first request line (the connection may have
    /// been started on another thread).
    private(set) var shard = 0
    /// The responder is the last request's, its machine to be made new under the first lock this
    /// request takes of it (a lock of its own would cost about 45 instructions a request).
    private var reusesResponder = false
    var reply = ReplyDriver()
    var tally = RequestTally(began: 0)
    /// Whether libmicrohttpd has called the access handler for the request (its head is in).
    var started = false
    /// Requests begun on the connection; the current one's number.
    private(set) var number = 0
    /// The number of the request whose handler is running (0: none): only then may its request
    /// look headers up in libmicrohttpd (a request may be kept longer, even past its connection;
    /// afterwards its lookups answer nil). Atomic: a request may be read on another thread, and
    /// must then see it closed.
    let window = Atomic(0)
    #if DEBUG
        /// The connection's thread, where `ConnectionHeaders` checks it is read (debug builds).
        private(set) var thread = pthread_self()
    #endif

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
    // Unchecked exclusivity for the two fields the hot path reads while other code changes them
    // through long accesses, so the compiler cannot prove accesses apart and asks the runtime
    // (`swift_beginAccess`). Safe here: the context is reached only from its connection's thread,
    // one callback at a time, and ThreadSanitizer in CI watches that. Kept for what it saves
    // (callgrind of `bench/instructions`, 2026-12-06): 574 of 27,590 instructions per GET.
    @exclusivity(unchecked) var body = RequestBody()
    /// The most the body may hold: the server's `maxBodyBytes`, or what its head check allowed.
    var bodyLimit = 0
    @exclusivity(unchecked) var headers = RequestHeaders()
    /// The first `Content-Encoding` that names a coding other than identity (`HeaderWalk`).
    var contentCoding: String?

    init(server: HTTPServer, connection: OpaquePointer) {
        self.server = server
        self.connection = connection
        responder = HTTPResponder(wakeup: ConnectionWakeup(connection))
    }

    /// A request line arrived: the context is the new request's.
    func begin() {
        number += 1
        // The last request's responder is used again when nobody else holds it (a handler or a
        // waiter list could still answer it otherwise): its lock and machine are made once per
        // connection, not per request (about 300 instructions a request, bench/instructions).
        if number > 1 {
            if isKnownUniquelyReferenced(&responder) {
                reusesResponder = true
            } else {
                responder = HTTPResponder(wakeup: ConnectionWakeup(connection))
            }
        }
        shard = ThreadShard.current
        #if DEBUG
            thread = pthread_self()
        #endif
        tally = RequestTally(began: server.timesRequests ? MonotonicClock.nanoseconds() : 0)
    }

    /// The request is over: what it held is let go, ready for the connection's next one. The
    /// peer's address stays (the connection's own).
    func clear() {
        started = false
        method = ""
        path = ""
        rawQuery = []
        tooManyParameters = false
        authority = nil
        body = RequestBody()
        bodyLimit = 0
        headers.nextRequest()
        contentCoding = nil
        // The reply driver left itself clear in `ReplyDriver.finish`: assigning it afresh here
        // would release what it might hold inside the access, which makes that access one the
        // runtime must track (`swift_beginAccess`, about 75 instructions).
    }

    /// The head has been judged and passed: keeps where its common headers are, the body's
    /// content coding, and where a chunked body starts in libmicrohttpd's buffer.
    func headJudged(_ head: overlayd_head, contentCoding: String?) {
        headers.headJudged(head.known)
        self.contentCoding = contentCoding
        if head.chunked != 0 { body.chunked(from: head.body_start) }
    }

    /// A piece of the body. Past the limit the body is dropped and the request answered 413
    /// once it ends.
    func bodyArrived(_ data: UnsafePointer<CChar>?, count: Int) -> Bool {
        body.take(data, count: count, limit: bodyLimit)
    }

    /// libmicrohttpd's last call for the request (all of it has arrived), or its call after a
    /// resume: runs the handler the first time, queues the answer once there is one.
    func requestReceived() -> Bool {
        if body.isTooLarge { return refuse(.bodyTooLarge(limit: bodyLimit)) }
        // Read once: each read of the field retains the responder (it is a `var`).
        let responder = responder
        let action = withFreshMachine { $0.requestReceived() }
        guard case .runHandler = action else { return ReplyDriver.perform(action, for: self) }
        window.store(number, ordering: .releasing)
        tally.labels = withServer { $0.handler(HTTPRequest(self), responder) }
        window.store(0, ordering: .releasing)
        return ReplyDriver.perform(responder.machine.withLock { $0.handlerReturned() }, for: self)
    }

    /// Answers at once, before the handler; whatever body still comes is dropped.
    /// MHD 0.9.75: answered on the first call, the connection is closed after the answer.
    func refuse(_ refusal: HTTPRefusal) -> Bool {
        refuse(response: withServer { $0.refusals(refusal) })
    }

    /// Answers at once with the application's own refusal (`HTTPServerOptions.headCheck`).
    func refuse(response: HTTPResponse) -> Bool {
        body.refuse()
        return ReplyDriver.perform(withFreshMachine { $0.refused(.full(response)) }, for: self)
    }

    /// The first header with this name, while the handler of request `number` runs; nil before
    /// and after.
    func withHeader<Result>(
        _ name: String, of number: Int, _ body: (UnsafeRawBufferPointer?) -> Result
    ) -> Result {
        guard window.load(ordering: .acquiring) == number else { return body(nil) }
        if var authority, name.utf8.count == 4, name.lowercased() == "host" {
            return authority.withUTF8 { body(UnsafeRawBufferPointer($0)) }
        }
        return headers.lookUp(name, on: connection, body)
    }

    /// The peer's address while the handler of request `number` runs ("" before and after).
    func address(of number: Int) -> String {
        guard window.load(ordering: .acquiring) == number else { return "" }
        return headers.address(of: connection)
    }

    /// libmicrohttpd is done with the request (`connection` nil: it never had one to speak of):
    /// the status and body bytes that were sent (0 and 0 when nothing was).
    func finish(_ connection: OpaquePointer?) -> (status: Int, bytes: Int) {
        if case .discard(.stream(_, _, let stream)) = withFreshMachine({ $0.requestCompleted() }) {
            // Never handed to libmicrohttpd, which would have released it: its writer must learn
            // that it is over.
            stream.released()
        }
        if let connection, withServer({ $0.recordsAddresses && $0.observer != nil }) {
            _ = headers.address(of: connection)
        }
        return ReplyDriver.finish(for: self)
    }

    /// Runs `body` on the responder's machine under its lock, the machine made new first if the
    /// responder is the last request's. What reaches the machine first for a request goes through
    /// here: its end, its refusal or its completion.
    private func withFreshMachine(
        _ body: (inout ResponderStateMachine<HTTPResponder.Reply>) -> ResponderStateMachine<HTTPResponder.Reply>.Action
    ) -> ResponderStateMachine<HTTPResponder.Reply>.Action {
        let fresh = reusesResponder
        reusesResponder = false
        return responder.machine.withLock { machine in
            if fresh { machine = ResponderStateMachine() }
            return body(&machine)
        }
    }

    /// The server, borrowed: not retained, nor what is reached through it (the saving is counted
    /// at `server`).
    @inline(__always)
    func withServer<Result>(_ body: (HTTPServer) -> Result) -> Result {
        Unmanaged.passUnretained(server)._withUnsafeGuaranteedRef(body)
    }

    /// The access record of the finished request.
    func record(status: Int, bytes: Int) -> AccessRecord {
        tally.record(method: method, path: path, status: status, bytes: bytes, remoteAddress: headers.address)
    }
}
