/// What one POST to the publisher endpoint came to.
public enum TransportResult: Hashable, Sendable {
    /// The endpoint answered with this HTTP status.
    case status(Int)
    /// No answer: the connection failed or timed out; the text says why.
    case failed(String)
}

/// Sends a message to the pub/sub endpoint. Used by the publishing thread only, one request at a
/// time, so an implementation may keep a connection open between requests.
public protocol PublishTransport: AnyObject {
    func post(url: String, body: [UInt8]) -> TransportResult
}
