/// What a handler answers its request through: the server's `HTTPResponder`, or a test's own
/// (a handler run without a socket). Class-bound, so that one held as `any HTTPAnswering` is a
/// reference and a witness table, not a boxed value.
public protocol HTTPAnswering: AnyObject, Sendable {
    /// Answers the request, from any thread. Only the first answer counts.
    func respond(_ response: HTTPResponse)
    /// Answers with a body written as it goes (Server-Sent Events); nil if already answered.
    func stream(status: Int, headers: [Header]) -> HTTPStream?
    /// Lets the server end the request if its client leaves while the answer waits (a reader
    /// waiting for a change). Call it in the handler.
    func endIfClientLeaves()
    /// Whether an answer has been given (or the request is over).
    var hasResponded: Bool { get }
}
