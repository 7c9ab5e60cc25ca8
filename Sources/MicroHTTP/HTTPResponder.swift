import Platform

/// The handle a handler answers its request with, from any thread: the answer's state as a
/// `ResponderStateMachine` behind a lock, and the connection's wake-up. What the connection's own
/// thread keeps of the request is in its `RequestContext`, which drives this machine's actions.
///
/// `respond(_:)` may be called from any thread, once; later calls are ignored. Answering after the
/// handler returned resumes the suspended connection.
public final class HTTPResponder: HTTPAnswering {
    enum Reply {
        case full(HTTPResponse)
        /// A response built once for many connections (`HTTPResponse.prepare()`), carried as its
        /// one shared object.
        case prepared(status: Int, PreparedResponse)
        case stream(status: Int, headers: [Header], HTTPStream)
    }

    // All a fan-out touches of a parked reader, whose memory has gone cold: the lock, then the
    // connection to wake. Each cache line it reads is a miss.
    let machine = Lock(ResponderStateMachine<Reply>())
    let wakeup: ConnectionWakeup

    init(wakeup: ConnectionWakeup) {
        self.wakeup = wakeup
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
        let stream = HTTPStream(wakeup: wakeup)
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
            wakeup.resume()
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
        wakeup.resume()
        return true
    }

    /// Whether an answer has been given (or the request is over).
    public var hasResponded: Bool { machine.withLock { $0.hasResponded } }
}
