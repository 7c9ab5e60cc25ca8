import Foundation
import OverlayClientCore

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif

/// Turns a session's data-task callbacks into one `AsyncThrowingStream` per request, so that an
/// event stream is read as it arrives (there is no `URLSession.bytes` in FoundationNetworking).
/// Ending the stream, or the reading task's cancellation, cancels the task and closes its
/// connection.
///
/// The head is taken from the task when its first bytes (or its end) arrive rather than from the
/// response callback, whose signature differs between Foundations.
// Safe to share: `readers` is only read and written under `lock`; the rest never changes.
final class StreamingDelegate: NSObject, URLSessionDataDelegate, @unchecked Sendable {
    private struct Reader {
        var continuation: AsyncThrowingStream<HTTPStreamPart, any Error>.Continuation
        var hasHead = false
    }

    private let lock = NSLock()
    private var readers: [Int: Reader] = [:]

    func open(_ request: URLRequest, in session: URLSession) -> AsyncThrowingStream<HTTPStreamPart, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: HTTPStreamPart.self)
        let task = session.dataTask(with: request)
        let handle = DataTaskHandle()
        lock.lock()
        readers[task.taskIdentifier] = Reader(continuation: continuation)
        lock.unlock()
        continuation.onTermination = { _ in handle.cancel() }
        handle.start(task)
        return stream
    }

    /// The reader of `task`, having yielded the task's head to it if that was still to do.
    private func reader(of task: URLSessionTask, ending: Bool = false) -> Reader? {
        lock.lock()
        let found = ending ? readers.removeValue(forKey: task.taskIdentifier) : readers[task.taskIdentifier]
        let head = found?.hasHead == false ? task.response as? HTTPURLResponse : nil
        if head != nil, !ending { readers[task.taskIdentifier]?.hasHead = true }
        lock.unlock()
        if let head { found?.continuation.yield(.head(URLSessionTransport.head(head))) }
        return found
    }

    func urlSession(_ session: URLSession, dataTask: URLSessionDataTask, didReceive data: Data) {
        reader(of: dataTask)?.continuation.yield(.body(data))
    }

    func urlSession(_ session: URLSession, task: URLSessionTask, didCompleteWithError error: (any Error)?) {
        guard let reader = reader(of: task, ending: true) else { return }
        if let error {
            reader.continuation.finish(throwing: URLSessionTransport.clientError(error))
        } else {
            reader.continuation.finish()
        }
    }
}
