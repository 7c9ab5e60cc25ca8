import MicroHTTP
import Platform

/// What a handler answers, taken without a socket: the test double of the server's
/// `HTTPResponder`. A handler runs on a request built by hand, as the server would run it; an
/// answer given in it, or later from another thread (a commit, a long-poll's change), is kept for
/// the test to read. Only the first answer counts, as with the server's.
final class DetachedAnswer: HTTPAnswering {
    /// What the request was answered with.
    enum Answer: Sendable {
        case response(HTTPResponse)
        /// A stream: its status and headers, and the stream to take what it is sent from.
        case stream(status: Int, headers: [Header], HTTPStream)
    }

    /// The answer once it has come; its condition wakes a waiting test. No thread is started.
    private let answer = ConditionThread<Answer?>(nil)

    /// Runs `handler` on `request` with a detached answer, and returns where its answer comes.
    static func handle<Labels>(
        _ request: HTTPRequest, _ handler: (HTTPRequest, any HTTPAnswering) -> Labels
    ) -> DetachedAnswer {
        let detached = DetachedAnswer()
        _ = handler(request, detached)
        return detached
    }

    func respond(_ response: HTTPResponse) {
        give(.response(response))
    }

    func stream(status: Int, headers: [Header]) -> HTTPStream? {
        let stream = HTTPStream()
        return give(.stream(status: status, headers: headers, stream)) ? stream : nil
    }

    /// Nothing to leave: there is no client.
    func endIfClientLeaves() {}

    var hasResponded: Bool { current != nil }

    /// The answer, if it has come.
    var current: Answer? { answer.withLock { $0.state } }

    /// The answer's response (nil: none yet, or a stream).
    var response: HTTPResponse? {
        guard case .response(let response)? = current else { return nil }
        return response
    }

    /// Waits up to `seconds` for the answer (of a write waiting for its commit, say).
    func wait(seconds: Double) -> Answer? {
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
    func response(waiting seconds: Double) -> HTTPResponse? {
        switch seconds > 0 ? wait(seconds: seconds) : current {
        case .response(let response)?: return response
        case .stream(let status, let headers, let stream)?:
            return HTTPResponse(status: status, headers: headers, body: stream.takeBuffered().bytes)
        case nil: return nil
        }
    }

    @discardableResult
    private func give(_ given: Answer) -> Bool {
        answer.withLock { locked in
            guard locked.state == nil else { return false }
            locked.state = given
            locked.broadcast()
            return true
        }
    }
}
