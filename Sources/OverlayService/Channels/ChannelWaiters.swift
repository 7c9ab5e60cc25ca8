import MicroHTTP

/// A long-poll parked on a channel: what answers its request, the server's `HTTPResponder` (or a
/// test's own, run without a socket).
struct WaitingReader: ParkedReader, Sendable {
    let responder: any HTTPAnswering

    var hasResponded: Bool { responder.hasResponded }
}

extension ChannelStateMachine.Waiter where Reader == WaitingReader {
    /// Answers the waiter.
    func answer(_ response: HTTPResponse) {
        reader.responder.respond(response)
    }
}

extension Array where Element == Channel.Machine.Waiter {
    /// Answers every waiter with `response` (they all get the same), emptying the array. Taken
    /// out one by one (`removeLast`): each waiter is let go as soon as it is answered.
    mutating func answerAll(_ response: HTTPResponse) {
        while let waiter = popLast() { waiter.answer(response) }
    }
}
