import MicroHTTP

/// A long-poll parked on a channel: libmicrohttpd's responder of the request.
extension HTTPResponder: ParkedReader {}

extension ChannelStateMachine.Waiter where Reader == HTTPResponder {
    /// Answers the waiter.
    func answer(_ response: HTTPResponse) {
        reader.respond(response)
    }
}

extension Array where Element == Channel.Machine.Waiter {
    /// Answers every waiter with `response` (they all get the same), emptying the array. Taken
    /// out one by one (`removeLast`): each waiter is let go as soon as it is answered.
    mutating func answerAll(_ response: HTTPResponse) {
        while let waiter = popLast() { waiter.answer(response) }
    }
}
