/// The life of one request's answer as a value: each event returns what the driver must do.
///
/// `HTTPResponder` keeps it under its lock and performs the returned action after releasing the
/// lock, so libmicrohttpd's suspend, resume and queue calls are never made while it is held. A
/// reply may arrive from any thread; every other event comes from the connection's own
/// libmicrohttpd thread.
///
/// The one race that needs a state of its own: the handler returns without an answer, so the
/// connection must be suspended, and a reply comes from another thread while the suspend call is
/// being made. `suspending` keeps that reply, and the `suspendCompleted` that follows the call
/// asks for the resume: a resume is never issued before its suspend.
///
/// Generic over the reply so that its tests can use plain values.
struct ResponderStateMachine<Reply> {
    enum State {
        /// The request is arriving; the handler has not run.
        case receiving
        /// The handler runs and has not answered.
        case handling
        /// An answer waits for the connection's thread to queue it.
        case ready(Reply)
        /// The handler returned without answering and the connection is being suspended; a reply
        /// that came meanwhile waits here for the suspend to finish.
        case suspending(Reply?)
        /// The connection waits, suspended. `socket` is its descriptor, for the sweep's peek.
        case suspended(socket: Int32)
        /// The answer went to libmicrohttpd.
        case sent
        /// libmicrohttpd completed the request: nothing may touch the connection again.
        case finished
    }

    enum Action {
        /// Nothing to do.
        case none
        /// The request is complete: call the handler, then report `handlerReturned`.
        case runHandler
        /// Queue this answer on the connection (on its own thread).
        case queue(Reply)
        /// Suspend the connection, then report `suspendCompleted`.
        case suspend
        /// Resume the suspended connection: its answer is ready.
        case resume
        /// The reply came too late: the request has its answer already, or is over.
        case rejectReply
        /// Peek at the connection's socket; report `clientGone` if its client has left.
        case probe(socket: Int32)
        /// The request ended before this answer was queued: let go of it (a stream is released).
        case discard(Reply)
    }

    private(set) var state = State.receiving
    /// Set by the handler (`endIfClientLeaves`): the sweep may end the wait if the client leaves.
    private(set) var endsIfClientLeaves = false

    /// libmicrohttpd has the whole request, or calls again after a resume.
    mutating func requestReceived() -> Action {
        switch state {
        case .receiving:
            state = .handling
            return .runHandler
        case .ready:
            return takeReady()
        case .handling, .suspending, .suspended, .sent, .finished:
            return .none
        }
    }

    /// The server answers by itself, before the handler (a body too large, a malformed request,
    /// a server that is stopping).
    mutating func refused(_ reply: Reply) -> Action {
        guard case .receiving = state else { return .none }
        state = .sent
        return .queue(reply)
    }

    /// The handler asks to be let go if its client leaves while the answer waits.
    mutating func endIfClientLeaves() {
        endsIfClientLeaves = true
    }

    mutating func handlerReturned() -> Action {
        switch state {
        case .handling:
            state = .suspending(nil)
            return .suspend
        case .ready:
            return takeReady()
        case .receiving, .suspending, .suspended, .sent, .finished:
            return .none
        }
    }

    /// An answer, from any thread. Only the first counts. Consumed: kept without a copy.
    mutating func replyArrived(_ reply: consuming Reply) -> Action {
        switch state {
        case .receiving, .handling:
            state = .ready(reply)
            return .none
        case .suspending(nil):
            state = .suspending(reply)
            return .none
        case .suspended:
            state = .ready(reply)
            return .resume
        case .suspending, .ready, .sent, .finished:
            return .rejectReply
        }
    }

    /// The suspend call is done; `socket` is the connection's descriptor.
    mutating func suspendCompleted(socket: Int32) -> Action {
        guard case .suspending(let pending) = state else { return .none }
        guard let pending else {
            state = .suspended(socket: socket)
            return .none
        }
        state = .ready(pending)
        return .resume
    }

    /// The sweep looks for readers whose client has gone.
    func sweep() -> Action {
        guard case .suspended(let socket) = state, endsIfClientLeaves else { return .none }
        return .probe(socket: socket)
    }

    /// The sweep's peek found the client gone: `answer` ends the request (nobody reads it).
    /// A responder is suspended at most once, so one still suspended now has been since the
    /// peek, and the socket peeked at was its own.
    mutating func clientGone(answer: Reply) -> Action {
        guard case .suspended = state, endsIfClientLeaves else { return .none }
        state = .ready(answer)
        return .resume
    }

    /// libmicrohttpd is done with the request (answered, or the connection closed).
    mutating func requestCompleted() -> Action {
        var previous = State.finished
        swap(&previous, &state)
        switch consume previous {
        case .ready(let reply), .suspending(let reply?): return .discard(reply)
        case .receiving, .handling, .suspending(nil), .suspended, .sent, .finished: return .none
        }
    }

    /// Whether an answer has been given (or the request is over).
    var hasResponded: Bool {
        switch state {
        case .receiving, .handling, .suspending(nil), .suspended: false
        case .ready, .suspending, .sent, .finished: true
        }
    }

    /// The ready reply, moved out of the state rather than copied (a copy retains what it holds).
    private mutating func takeReady() -> Action {
        var taken = State.sent
        swap(&taken, &state)
        guard case .ready(let reply) = consume taken else { return .none }
        return .queue(reply)
    }
}

extension ResponderStateMachine.Action: Equatable where Reply: Equatable {}
extension ResponderStateMachine.State: Equatable where Reply: Equatable {}
