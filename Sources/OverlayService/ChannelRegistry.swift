import OverlayEngine
import Synchronization

/// The named channels, each an independent overlay (like ntfy topics).
///
/// `default` always exists and serves the unprefixed paths. Another channel comes into being on
/// its first write, or when a reader subscribes to it (so a display may start before its
/// senders); reading a channel that does not exist shows what a new one would. Their number is
/// bounded by `limits.maxChannels`.
final class ChannelRegistry: Sendable {
    static let defaultName = "default"

    private struct State {
        var channels: [String: Channel] = [:]
        var nextNumber = 0
    }

    private let state = Mutex(State())
    private let limit: Int
    private let make: @Sendable (_ name: String, _ number: Int) -> Channel

    /// The registry with `restored` channels (from the store) and `default`.
    init(limit: Int, restored: [Channel] = [], make: @escaping @Sendable (_ name: String, _ number: Int) -> Channel) {
        self.limit = limit
        self.make = make
        state.withLock { state in
            for channel in restored {
                state.channels[channel.name] = channel
            }
            state.nextNumber = restored.count
        }
        defaultChannel = state.withLock { state in
            if let restored = state.channels[ChannelRegistry.defaultName] { return restored }
            let channel = make(ChannelRegistry.defaultName, state.nextNumber)
            state.nextNumber += 1
            state.channels[ChannelRegistry.defaultName] = channel
            return channel
        }
    }

    /// `default`, kept aside: most requests use it, and need no lock to find it.
    let defaultChannel: Channel

    /// The channel, if it exists.
    func existing(_ name: String) -> Channel? {
        if name == ChannelRegistry.defaultName { return defaultChannel }
        return state.withLock { $0.channels[name] }
    }

    /// The channel, created if it does not exist yet and the limit allows.
    func obtain(_ name: String) throws(APIError) -> Channel {
        if name == ChannelRegistry.defaultName { return defaultChannel }
        let result = state.withLock { state -> Channel? in
            if let channel = state.channels[name] { return channel }
            guard state.channels.count < limit else { return nil }
            let channel = make(name, state.nextNumber)
            state.nextNumber += 1
            state.channels[name] = channel
            return channel
        }
        guard let result else {
            throw APIError(
                status: 503, code: "too_many_channels",
                message: "the server holds its limit of \(limit) channels; use an existing one", field: "channel")
        }
        return result
    }

    /// Every channel, by name.
    var all: [Channel] {
        state.withLock { $0.channels.values.sorted { $0.name < $1.name } }
    }
}
