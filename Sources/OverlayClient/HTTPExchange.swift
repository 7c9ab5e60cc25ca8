import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// One request and its whole answer, through a data task that the calling task's cancellation
/// cancels (and so closes its connection): `URLSession.data(for:)` does not do that everywhere.
enum HTTPExchange {
    /// The reason given when no byte came within a request's timeout.
    static let timedOut = "timed out"

    static func perform(_ request: URLRequest, in session: URLSession) async throws -> (HTTPURLResponse, Data) {
        let handle = DataTaskHandle()
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: request) { data, response, error in
                    if let error {
                        continuation.resume(throwing: HTTPExchange.clientError(error))
                    } else if let response = response as? HTTPURLResponse {
                        continuation.resume(returning: (response, data ?? Data()))
                    } else {
                        continuation.resume(throwing: OverlayClientError.unreachable("no HTTP answer"))
                    }
                }
                handle.start(task)
            }
        } onCancel: {
            handle.cancel()
        }
    }

    /// A URLSession error as the client reports it; a cancellation stays a `CancellationError`.
    static func clientError(_ error: any Error) -> any Error {
        let error = error as NSError
        switch error.code {
        case NSURLErrorCancelled: return CancellationError()
        case NSURLErrorCannotConnectToHost: return OverlayClientError.unreachable("connection refused")
        case NSURLErrorTimedOut: return OverlayClientError.unreachable(timedOut)
        case NSURLErrorNetworkConnectionLost: return OverlayClientError.unreachable("connection lost")
        case NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed: return OverlayClientError.unreachable("unknown host")
        default: return OverlayClientError.unreachable(error.localizedDescription)
        }
    }
}

/// A data task that may be cancelled before it is started: then it is cancelled as it starts.
final class DataTaskHandle: @unchecked Sendable {
    private let lock = NSLock()
    private var task: URLSessionTask?
    private var cancelled = false

    func start(_ task: URLSessionTask) {
        lock.lock()
        self.task = task
        let cancelled = self.cancelled
        lock.unlock()
        task.resume()
        if cancelled { task.cancel() }
    }

    func cancel() {
        lock.lock()
        cancelled = true
        let task = self.task
        lock.unlock()
        task?.cancel()
    }
}
