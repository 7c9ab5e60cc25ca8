import MicroHTTP

/// A long-poll parked on a channel: libmicrohttpd's responder of the request.
extension HTTPResponder: ParkedReader {}

extension ChannelStateMachine.Waiter where Reader == HTTPResponder {
    /// Answers the waiter. The responder is borrowed from the waiter, which holds it for the
    /// call, not retained again: a fan-out answers thousands of them while the pool threads
    /// answer them too.
    func answer(_ response: HTTPResponse) {
        Unmanaged.passUnretained(reader)._withUnsafeGuaranteedRef { $0.respond(response) }
    }
}

extension Array where Element == Channel.Machine.Waiter {
    /// How many answers ahead a fan-out fetches a waiter's responder: far enough for the fetch to
    /// arrive before its answer, near enough for it to still be in the cache.
    static var prefetchDistance: Int { 8 }

    /// Answers every waiter with `response` (they all get the same), emptying the array. Taken
    /// out one by one (`removeLast`), not iterated: iterating retains each, and the array's end
    /// would release them all in a second pass (docs/ARCHITECTURE.md, hot-path rules). The
    /// responder a few answers ahead is fetched meanwhile.
    mutating func answerAll(_ response: HTTPResponse) {
        // The responder's address is read from the array's memory: taking the reference out would
        // retain it, a write to the cold line the fetch is for.
        let readerOffset = MemoryLayout<Element>.offset(of: \.reader)!
        while !isEmpty {
            let ahead = count - 1 - Self.prefetchDistance
            if ahead >= 0 {
                withUnsafeBytes { bytes in
                    HTTPResponder.prefetch(
                        at: bytes.load(
                            fromByteOffset: ahead * MemoryLayout<Element>.stride + readerOffset,
                            as: UnsafeRawPointer.self))
                }
            }
            removeLast().answer(response)
        }
    }
}
