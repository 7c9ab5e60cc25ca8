import Platform

/// The answer of a detached responder (`HTTPResponder.detached()`): a handler run as the server
/// runs it, on a request built by hand, with no connection. The responder goes through the same
/// states as one of libmicrohttpd's: the handler runs, an answer given in it is taken when it
/// returns, and one given later (a commit, a long-poll's change) is taken when it comes.
public final class DetachedAnswer: Sendable {
    /// What the request was answered with.
    public enum Answer: Sendable {
        case response(HTTPResponse)
        /// A stream: its status and headers, and the stream to take what it is sent from.
        case stream(status: Int, headers: [Header], HTTPStream)
    }

    /// The answer once it has come; its condition wakes a waiting test. No thread is started.
    private let answer = ConditionThread<Answer?>(nil)

    init() {}

    /// Runs `handler` on `request` with a detached responder, as the server would, and returns
    /// where its answer comes.
    public static func handle(
        _ request: HTTPRequest, _ handler: (HTTPRequest, HTTPResponder) -> Void
    ) -> (HTTPResponder, DetachedAnswer) {
        let (responder, detached) = HTTPResponder.detached()
        guard case .runHandler = responder.machine.withLock({ $0.requestReceived() }) else {
            return (responder, detached)
        }
        handler(request, responder)
        detached.take(responder.machine.withLock { $0.handlerReturned() }, from: responder)
        return (responder, detached)
    }

    /// The answer, if it has come.
    public var current: Answer? { answer.withLock { $0.state } }

    /// The answer's response (nil: none yet, or a stream).
    public var response: HTTPResponse? {
        guard case .response(let response)? = current else { return nil }
        return response
    }

    /// Waits up to `seconds` for the answer (of a write waiting for its commit, say).
    public func wait(seconds: Double) -> Answer? {
        let deadline = MonotonicClock.nanoseconds() + Int64(seconds * 1e9)
        return answer.withLock { locked in
            while locked.state == nil && MonotonicClock.nanoseconds() < deadline {
                locked.wait(untilMonotonic: deadline)
            }
            return locked.state
        }
    }

    /// The answer as a response, waiting up to `seconds` for it: a stream is its head with what it
    /// has been sent so far as the body. Nil while none has come (a long-poll still waiting).
    public func response(waiting seconds: Double) -> HTTPResponse? {
        switch seconds > 0 ? wait(seconds: seconds) : current {
        case .response(let response)?: return response
        case .stream(let status, let headers, let stream)?:
            return HTTPResponse(status: status, headers: headers, body: stream.takeBuffered().bytes)
        case nil: return nil
        }
    }

    /// The suspended responder was answered (from any thread): its answer is taken at once.
    func resumed(_ responder: HTTPResponder) {
        take(responder.machine.withLock { $0.requestReceived() }, from: responder)
    }

    private func take(_ action: ResponderStateMachine<HTTPResponder.Reply>.Action, from responder: HTTPResponder) {
        switch action {
        case .queue(let reply):
            let taken: Answer =
                switch reply {
                case .full(let response): .response(response)
                case .prepared(let status, let prepared):
                    .response(HTTPResponse(status: status, headers: prepared.headers, body: prepared.body))
                case .stream(let status, let headers, let stream): .stream(status: status, headers: headers, stream)
                }
            answer.withLock { locked in
                locked.state = taken
                locked.broadcast()
            }
        case .suspend:
            if case .resume = responder.machine.withLock({ $0.suspendCompleted(socket: -1) }) { resumed(responder) }
        case .none, .runHandler, .resume, .rejectReply, .probe, .discard:
            break
        }
    }
}
