import Foundation
import OverlayClientCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// The client's transport on URLSession (FoundationNetworking on Linux): an ephemeral session
/// with no cache (a long-poll's `If-None-Match` is the client's own, and a 304 must reach it).
///
/// Each request is a data task that the calling task's cancellation cancels, and so closes its
/// connection: `URLSession.data(for:)` does not do that everywhere. Streamed answers come
/// through the session's delegate (there is no `URLSession.bytes` in FoundationNetworking).
public final class URLSessionTransport: HTTPTransport {
    private let delegate = StreamingDelegate()
    private let session: URLSession

    /// A transport with a session of its own, until `close()`.
    public init() {
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
    }

    public func perform(_ request: HTTPRequest) async throws -> (HTTPResponseHead, Data) {
        let handle = DataTaskHandle()
        let urlRequest = Self.urlRequest(request)
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                let task = session.dataTask(with: urlRequest) { data, response, error in
                    if let error {
                        continuation.resume(throwing: Self.clientError(error))
                    } else if let response = response as? HTTPURLResponse {
                        continuation.resume(returning: (Self.head(response), data ?? Data()))
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

    public func stream(_ request: HTTPRequest) -> AsyncThrowingStream<HTTPStreamPart, any Error> {
        delegate.open(Self.urlRequest(request), in: session)
    }

    /// Cancels what is in flight and lets the session close its idle connections.
    public func close() {
        session.invalidateAndCancel()
    }

    static func urlRequest(_ request: HTTPRequest) -> URLRequest {
        var urlRequest = URLRequest(url: request.url)
        urlRequest.httpMethod = request.method
        urlRequest.timeoutInterval = request.timeout
        for (name, value) in request.headers { urlRequest.setValue(value, forHTTPHeaderField: name) }
        urlRequest.httpBody = request.body
        return urlRequest
    }

    static func head(_ response: HTTPURLResponse) -> HTTPResponseHead {
        var head = HTTPResponseHead(status: response.statusCode)
        for case let (name as String, value as String) in response.allHeaderFields { head.add(name, value) }
        return head
    }

    /// A URLSession error as the client reports it; a cancellation stays a `CancellationError`.
    static func clientError(_ error: any Error) -> any Error {
        let error = error as NSError
        switch error.code {
        case NSURLErrorCancelled: return CancellationError()
        case NSURLErrorCannotConnectToHost: return OverlayClientError.unreachable("connection refused")
        case NSURLErrorTimedOut: return OverlayClientError.timedOut
        case NSURLErrorNetworkConnectionLost: return OverlayClientError.unreachable("connection lost")
        case NSURLErrorCannotFindHost, NSURLErrorDNSLookupFailed: return OverlayClientError.unreachable("unknown host")
        default: return OverlayClientError.unreachable(error.localizedDescription)
        }
    }
}

/// A data task that may be cancelled before it is started: then it is cancelled as it starts.
// Safe to share: `task` and `cancelled` are only read and written under `lock`.
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
