import OverlayClientCore
import Platform

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The commands' transport: each request on an exchange of its own through libcurl (loaded
/// with dlopen when the first request is made), so that the overlayd executable links neither
/// libcurl nor FoundationNetworking and its server starts without them.
///
/// An exchange's connection is closed when it ends: a command makes few requests, and a stream
/// or long-poll holds its connection for as long as it runs anyway.
final class CurlHTTPTransport: HTTPTransport {
    /// The exchanges under way, stopped by `close()`.
    private let running = Lock<[ObjectIdentifier: CurlExchange]>([:])

    init() {}

    func perform(_ request: HTTPRequest) async throws -> (HTTPResponseHead, Data) {
        let answer = Answer()
        let exchange = try CurlExchange(
            request,
            CurlExchange.Handlers(
                head: { head in answer.state.withLock { $0.head = head } },
                body: { data in answer.state.withLock { $0.body.append(data) } },
                end: { error in answer.end(error) }))
        let key = ObjectIdentifier(exchange)
        running.withLock { $0[key] = exchange }
        defer { _ = running.withLock { $0.removeValue(forKey: key) } }
        return try await withTaskCancellationHandler {
            try await withCheckedThrowingContinuation { continuation in
                answer.state.withLock { $0.continuation = continuation }
                exchange.start()
            }
        } onCancel: {
            exchange.stop()
        }
    }

    func stream(_ request: HTTPRequest) -> AsyncThrowingStream<HTTPStreamPart, any Error> {
        let (stream, continuation) = AsyncThrowingStream.makeStream(of: HTTPStreamPart.self)
        let exchange: CurlExchange
        do {
            exchange = try CurlExchange(
                request,
                CurlExchange.Handlers(
                    head: { continuation.yield(.head($0)) },
                    body: { continuation.yield(.body($0)) },
                    end: { continuation.finish(throwing: $0) }))
        } catch {
            continuation.finish(throwing: error)
            return stream
        }
        let key = ObjectIdentifier(exchange)
        running.withLock { $0[key] = exchange }
        // Called when the exchange ends too: then the stop is a no-op.
        continuation.onTermination = { [self] _ in
            exchange.stop()
            _ = running.withLock { $0.removeValue(forKey: key) }
        }
        exchange.start()
        return stream
    }

    func close() {
        for exchange in running.withLock({ $0.values }) { exchange.stop() }
    }
}

/// What an exchange of `perform` gathered on its thread, and the task waiting for its end.
private final class Answer: Sendable {
    struct State {
        var head: HTTPResponseHead?
        var body = Data()
        var continuation: CheckedContinuation<(HTTPResponseHead, Data), any Error>?
    }

    let state = Lock(State())

    /// Resumes the waiting task with the answer, or with `error`.
    func end(_ error: (any Error)?) {
        let (continuation, result) = state.withLock { state in
            defer { state.continuation = nil }
            let result: Result<(HTTPResponseHead, Data), any Error> =
                if let error { .failure(error) } else if let head = state.head { .success((head, state.body)) } else {
                    .failure(OverlayClientError.unreachable("no HTTP answer"))
                }
            return (state.continuation, result)
        }
        continuation?.resume(with: result)
    }
}
