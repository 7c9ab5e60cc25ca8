/// What a POST did: a new message, or an update of the live message with the same `key`.
public enum PostOutcome: Hashable, Sendable {
    case created(Message)
    case updated(Message)

    public var message: Message {
        switch self {
        case .created(let message), .updated(let message): message
        }
    }
}
