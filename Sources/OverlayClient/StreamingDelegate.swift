import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// A piece of a streamed answer: its head, then its body as it arrives.
enum StreamPart: Sendable {
    case response(HTTPURLResponse)
    case data(Data)
}

/// Turns a session's data-task callbacks into one `AsyncThrowingStream` per request, so that an
/// event stream is read as it arrives (there is no `URLSession.bytes` in FoundationNetworking).
/// Ending the stream, or the reading task's cancellation, cancels the task and closes its
/// connection.
final class StreamingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private let lock = NSLock()
    private var streams: [Int: AsyncThrowingStream<StreamPart, any Error>.Continuation] = [:]

    func open(_ request: URLRequest, in session: URLSession) -> AsyncThrowingStream<StreamPart, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: StreamPart.self)
        let task = session.dataTask(with: request)
        let handle = DataTaskHandle()
        lock.lock()
        streams[task.taskIdentifier] = continuation
        lock.unlock()
        continuation.onTermination = { _ in handle.cancel() }
        handle.start(task)
        return stream
    }

    private func continuation(of task: URLSessionTask) -> AsyncThrowingStream<StreamPart, any Error>.Continuation? {
        lock.lock()
        defer { lock.unlock() }
        return streams[task.taskIdentifier]
    }

    func urlSession(
        _ session: URLSession, dataTask: URLSessionDataTask, didReceive response: URLResponse,
        completionHandler: @escaping (URLSession.ResponseDisposition) -> Void
    ) {
        if let response = response as? HTTPURLResponse {
            continuation(of: dataTask)?.yield(.response(response))
        }
        completionHandler(.allow)
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        continuation(of: dataTask)?.yield(.data(data))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        lock.lock()
        let continuation = streams.removeValue(forKey: task.taskIdentifier)
        lock.unlock()
        if let error {
            continuation?.finish(throwing: HTTPExchange.clientError(error))
        } else {
            continuation?.finish()
        }
    }
}
