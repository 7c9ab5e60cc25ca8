import OverlayEngine

/// One channel's changes to write: its state and the messages whose records changed, built from
/// the engine and what its events changed.
public struct ChannelRecord: Sendable {
    public var name: String
    public var state: EngineState
    /// Messages to insert or update: the live ones first, then the ended ones in the order they
    /// ended.
    public var messages: [Message]
    /// Messages gone from the engine (out of the history), whose rows are deleted.
    public var forgotten: [Int64]
    /// The channel is deleted: every row of it is removed, and nothing else of the record written.
    public var removed = false

    /// The record of `changes` on `engine`, taken right after them (under the channel's lock, so
    /// that one channel's records reach the store in the order they happened).
    public init(name: String, engine: OverlayEngine, changes: Changes) {
        self.name = name
        state = engine.state
        messages = []
        forgotten = []
        var ended: [(order: Int, message: Message)] = []
        for id in Set(changes.messages).sorted() {
            guard let message = engine.message(id: id) else {
                forgotten.append(id)
                continue
            }
            if message.state.hasEnded {
                // An ended message still drawn but already out of the history comes first.
                ended.append((engine.history.order(of: id) ?? -1, message))
            } else {
                messages.append(message)
            }
        }
        // The store numbers ended messages in the order they come here. That must be the order
        // they ended (the history's), not their ids': a sticky message sent back to the queue by
        // an immediate one ends after it. Else a restart that cuts the history drops the newest.
        messages += ended.sorted { ($0.order, $0.message.id) < ($1.order, $1.message.id) }.map(\.message)
    }
}

/// A channel read back at start-up, with its reservations applied: the version and next id it
/// continues from are beyond anything served before.
public struct LoadedChannel: Sendable {
    public var name: String
    public var state: EngineState
    /// Messages that were queued or shown, in queue order.
    public var live: [Message]
    /// Ended messages, oldest first.
    public var history: [Message]
}
