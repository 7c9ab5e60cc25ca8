internal import CMicroHTTPD
import Platform

// What libmicrohttpd's callbacks do with a responder, on the thread that serves its connection
// (see DaemonCallbacks.swift).
extension HTTPResponder {
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
    func requestReceived(_ connection: OpaquePointer) -> Bool {
        if body.isTooLarge { return refuse(connection, .bodyTooLarge(limit: bodyLimit)) }
        let action = machine.withLock { $0.requestReceived() }
        guard case .runHandler = action else { return perform(action, connection) }
        lookupOpen.store(true, ordering: .releasing)
        withServer { $0.handler(HTTPRequest(self), self) }
        lookupOpen.store(false, ordering: .releasing)
        return perform(machine.withLock { $0.handlerReturned() }, connection)
    }

    /// Answers at once, before the handler; whatever body still comes is dropped.
    /// MHD 0.9.75: answered on the first call, the connection is closed after the answer.
    func refuse(_ connection: OpaquePointer, _ refusal: HTTPRefusal) -> Bool {
        refuse(connection, response: withServer { $0.refusals(refusal) })
    }

    /// Answers at once with the application's own refusal (`HTTPServerOptions.headCheck`).
    func refuse(_ connection: OpaquePointer, response: HTTPResponse) -> Bool {
        body.refuse()
        return perform(machine.withLock { $0.refused(.full(response)) }, connection)
    }

    private func perform(_ action: ResponderStateMachine<Reply>.Action, _ connection: OpaquePointer) -> Bool {
        switch action {
        case .queue(let reply):
            let queued = enqueue(reply, on: connection) == .YES
            withServer { $0.answerQueued(self) }
            return queued
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

    /// The first header with this name, while the handler runs; nil afterwards.
    func withHeader<Result>(_ name: String, _ body: (UnsafeRawBufferPointer?) -> Result) -> Result {
        guard lookupOpen.load(ordering: .acquiring), let connection else { return body(nil) }
        if var authority, name.utf8.count == 4, name.lowercased() == "host" {
            return authority.withUTF8 { body(UnsafeRawBufferPointer($0)) }
        }
        return headers.lookUp(name, on: connection, body)
    }

    /// The peer's address while the handler runs ("" afterwards).
    var lookedUpAddress: String {
        guard lookupOpen.load(ordering: .acquiring), let connection else { return "" }
        return headers.address(of: connection)
    }

    /// libmicrohttpd is done with the request: the status and body bytes that were sent (0 and 0
    /// when nothing was).
    func finish(_ connection: OpaquePointer?) -> (status: Int, bytes: Int) {
        if case .discard(.stream(_, _, let stream)) = machine.withLock({ $0.requestCompleted() }) {
            // Never handed to libmicrohttpd, which would have released it: its writer must learn
            // that it is over.
            stream.released()
        }
        unlist()
        if let connection, withServer({ $0.recordsAddresses && $0.observer != nil }) {
            _ = headers.address(of: connection)
        }
        guard let streamed else {
            // MHD 0.9.75: its next request may be one the epoll loop leaves unread.
            if wasSuspended { withServer { $0.resumeWatch.watch(suspendedSocket, shard: shard) } }
            return (sentStatus, sentBytes)
        }
        withServer { server in _ = server.streams.withLock { $0.removeValue(forKey: ObjectIdentifier(streamed)) } }
        return (sentStatus, streamed.bytesSent)
    }

    /// Takes the responder off `HTTPServer.suspended`: it has its answer, or the request is over.
    func unlist() {
        guard let listing else { return }
        withServer { $0.suspended.unlist(listing) }
        self.listing = nil
    }

    /// The server, borrowed: not retained, nor what is reached through it (the saving is counted
    /// at `server`). Only for a responder with a connection.
    @inline(__always)
    func withServer<Result>(_ body: (HTTPServer) -> Result) -> Result {
        Unmanaged.passUnretained(server.unsafelyUnwrapped)._withUnsafeGuaranteedRef(body)
    }

    func record(status: Int, bytes: Int) -> AccessRecord {
        AccessRecord(
            method: method, path: path, status: status, bytes: bytes,
            microseconds: (MonotonicClock.nanoseconds() - began) / 1000, remoteAddress: headers.address,
            principal: principal)
    }
}
