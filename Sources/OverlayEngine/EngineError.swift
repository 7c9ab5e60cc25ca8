/// Why the engine refused an event. Each maps to one HTTP status.
public enum EngineError: Error, Hashable, Sendable {
    /// A field is out of its range (422).
    case invalidField(field: String, reason: String)
    /// No message has this id, or it has left the history (404).
    case messageNotFound(id: Int64)
    /// The message has ended and cannot change (409).
    case messageEnded(id: Int64, state: MessageState)
    /// A new time (`delay`, `at`) for a message that is no longer scheduled (409).
    case notScheduled(id: Int64, state: MessageState, field: String)
    /// `maxScheduled` messages wait for their time (503); the first of them is due in about `retryAfter`.
    case scheduleFull(limit: Int, retryAfter: Interval)
    /// A touch needs a shown message and there is none (409).
    case nothingShown
    /// The queue holds `maxQueue` waiting messages (503); the shown one ends in about `retryAfter`.
    case queueFull(limit: Int, retryAfter: Interval)
}
