import MicroHTTP
import Platform

/// What the service answers a fuzzed request, taken without a socket: the first answer given while
/// its handler runs (a stream as its head and what it was sent by then), nil for a long-poll that
/// waits. Only what the fuzzer checks; the tests' double (`DetachedAnswer`) also waits.
final class FuzzAnswer: HTTPAnswering {
    private struct Taken {
        var response: HTTPResponse?
        var stream: HTTPStream?
    }

    private let taken = Lock(Taken())

    /// Runs `handler` on `request` and returns the answer it gave before returning, if any.
    static func handle<Labels>(
        _ request: HTTPRequest, _ handler: (HTTPRequest, any HTTPAnswering) -> Labels
    ) -> HTTPResponse? {
        let answer = FuzzAnswer()
        _ = handler(request, answer)
        let taken = answer.taken.withLock { $0 }
        guard var response = taken.response else { return nil }
        if let stream = taken.stream { response.body = stream.takeBuffered().bytes }
        return response
    }

    func respond(_ response: HTTPResponse) {
        taken.withLock { if $0.response == nil { $0.response = response } }
    }

    func stream(status: Int, headers: [Header]) -> HTTPStream? {
        let stream = HTTPStream()
        return taken.withLock { taken in
            guard taken.response == nil else { return nil }
            taken.response = HTTPResponse(status: status, headers: headers)
            taken.stream = stream
            return stream
        }
    }

    func endIfClientLeaves() {}

    var hasResponded: Bool { taken.withLock { $0.response != nil } }
}
