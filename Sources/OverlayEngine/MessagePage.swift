/// A page of the live messages, in the order they show (see `OverlayEngine.liveMessages(after:limit:)`).
public struct MessagePage: Hashable, Sendable {
    public var messages: [Message]
    /// The cursor of the next page (the id of this page's last message), nil when this page
    /// reaches the end.
    public var next: Int64?
}
