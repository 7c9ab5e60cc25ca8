#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// How `OverlayClient` reaches the server: one request and its whole answer, or a request whose
/// answer is read as it arrives. The client's logic (the calls, the update stream's reconnection
/// and fallback) is written against this, so that it needs no networking library of its own:
/// the `OverlayClient` library brings one on URLSession, and `overlayd post` and `watch` one on
/// libcurl, loaded only when they run.
///
/// A transport reports a failure to reach the server as `OverlayClientError.unreachable`, a
/// request that received no byte within its `timeout` as `OverlayClientError.timedOut`, and the
/// calling task's cancellation as `CancellationError`; any answer, whatever its status, is
/// returned. It follows no redirection the caller did not ask for and keeps no cache.
public protocol HTTPTransport: AnyObject, Sendable {
    /// Sends `request` and answers its head and whole body. Cancelling the calling task
    /// abandons the request and closes its connection.
    func perform(_ request: HTTPRequest) async throws -> (HTTPResponseHead, Data)

    /// Sends `request` and yields its head, then its body in pieces as they arrive, then ends
    /// (or throws) with the answer. Ending the iteration, or cancelling the reading task, closes
    /// the connection.
    func stream(_ request: HTTPRequest) -> AsyncThrowingStream<HTTPStreamPart, any Error>

    /// Closes every connection the transport keeps open; it is not used afterwards.
    func close()
}

/// A piece of a streamed answer: its head first, then its body as it arrives.
public enum HTTPStreamPart: Sendable {
    case head(HTTPResponseHead)
    case body(Data)
}

extension OverlayClientError {
    /// What a transport reports for a request that received no byte within its timeout.
    public static let timedOut = OverlayClientError.unreachable("timed out")
}
