import OverlayEngine
import Platform

/// The named channels, each an independent overlay (like ntfy topics).
///
/// `default` always exists and serves the unprefixed paths. Another channel comes into being on
/// its first write, or when a reader waits on it (so a display may start before its senders);
/// reading a channel that does not exist shows what a new one would and creates nothing.
///
/// Readers must never be able to lock writers out (they may not even hold a token). So a channel
/// that only readers asked for is provisional: it counts against a pool of its own, not against
/// the writers' `limits.maxChannels`; the first write makes it a channel like any other (if the
/// writers' limit allows); and the sweep lets it go once its last reader has left.
final class ChannelRegistry: Sendable {
    static let defaultName = "default"

    private struct State {
        var channels: [String: Channel] = [:]
        /// Channels only readers asked for: outside the writers' limit, let go once unread.
        var provisional: Set<String> = []
        var nextNumber = 0
        /// Channels found idle by `retireIdle`: at which version, since when (monotonic ns).
        var idle: [String: (version: UInt64, since: Int64)] = [:]

        var written: Int { channels.count - provisional.count }
    }

    private let state = Lock(State())
    /// Channels writers may create, `default` included.
    private let limit: Int
    /// Channels readers may wait on that no writer has created.
    private let readerLimit: Int
    private let make: @Sendable (_ name: String, _ number: Int) -> Channel
    /// What a new channel would hold now: the engine a read of a channel that does not exist sees.
    private let fresh: @Sendable () -> OverlayEngine

    /// The registry with `restored` channels (from the store) and `default`.
    init(
        limit: Int, readerLimit: Int, restored: [Channel] = [], fresh: @escaping @Sendable () -> OverlayEngine,
        make: @escaping @Sendable (_ name: String, _ number: Int) -> Channel
    ) {
        self.fresh = fresh
        self.limit = limit
        self.readerLimit = readerLimit
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

    /// The channel for a write: created if it does not exist yet, or made a full channel if only
    /// readers had asked for it, while the writers' limit allows.
    func obtain(_ name: String) throws(APIError) -> Channel {
        if name == ChannelRegistry.defaultName { return defaultChannel }
        let result = state.withLock { state -> Channel? in
            if let channel = state.channels[name] {
                guard state.provisional.contains(name) else { return channel }
                guard state.written < limit else { return nil }
                state.provisional.remove(name)
                return channel
            }
            guard state.written < limit else { return nil }
            return create(name, in: &state)
        }
        guard let result else {
            throw APIError(
                status: 503, code: "too_many_channels",
                message: "the server holds its limit of \(limit) channels; use an existing one", field: "channel")
        }
        return result
    }

    /// Runs a write on the channel `name`. A channel that does not exist yet is made only for a
    /// write that a fresh one would take: the event is tried first on a copy of what a new channel
    /// holds, and what `refusal` finds in its answer is thrown, so that a refused write (an empty
    /// text, a progress out of range) leaves no channel behind to count against the limit.
    func write<T: Sendable>(
        _ name: String, refusal: (T) -> APIError?, _ event: (inout OverlayEngine, Instant) -> Applied<T>
    ) throws(APIError) -> (value: T, sequence: UInt64?) {
        if existing(name) == nil {
            var engine = fresh()
            let now = engine.now
            if let error = refusal(event(&engine, now).value) { throw error }
        }
        // A channel deleted after it was found (DELETE, or retired as idle) takes no write: the
        // registry is asked again, and has let go of it or soon will.
        while true {
            if let written = try obtain(name).writeIfLive(event) { return written }
        }
    }

    /// The channel for a reader that waits (long-poll, event stream): created provisionally if it
    /// does not exist, within the readers' own pool.
    func obtainForReading(_ name: String) throws(APIError) -> Channel {
        if name == ChannelRegistry.defaultName { return defaultChannel }
        let result = state.withLock { state -> Channel? in
            if let channel = state.channels[name] { return channel }
            guard state.provisional.count < readerLimit else { return nil }
            state.provisional.insert(name)
            return create(name, in: &state)
        }
        guard let result else {
            throw APIError(
                status: 503, code: "too_many_channels",
                message: "readers wait on \(readerLimit) channels that no writer has created; wait on an existing one",
                field: "channel")
        }
        return result
    }

    private func create(_ name: String, in state: inout State) -> Channel {
        let channel = make(name, state.nextNumber)
        state.nextNumber += 1
        state.channels[name] = channel
        return channel
    }

    /// Lets go of every provisional channel that nobody reads any more (the sweep calls this);
    /// returns how many. A reader that joins one at that moment finds it retired and asks again.
    @discardableResult
    func releaseUnread() -> Int {
        let released = state.withLock { state in
            var released: [Channel] = []
            for name in state.provisional {
                guard let channel = state.channels[name], channel.retireIfUnread() else { continue }
                state.channels[name] = nil
                state.provisional.remove(name)
                released.append(channel)
            }
            return released
        }
        // A channel let go is never scheduled again: the scheduler forgets it.
        for channel in released { channel.forgetTimers() }
        return released.count
    }

    /// Lets go of the channel `name` for good (`DELETE /channels/{name}`): a later write or reader
    /// makes a new one. nil if there is none; `default` is never let go.
    func remove(_ name: String) -> Channel? {
        guard name != ChannelRegistry.defaultName else { return nil }
        return state.withLock { state in
            state.provisional.remove(name)
            return state.channels.removeValue(forKey: name)
        }
    }

    /// Deletes every channel other than `default` that has been idle (nothing shown, queued or
    /// scheduled, nobody reading, no new version) for `nanoseconds` by `now`; returns how many.
    /// Channels only readers made are the sweep's (`releaseUnread`).
    @discardableResult
    func retireIdle(after nanoseconds: Int64, now: Int64) -> Int {
        let (candidates, before) = state.withLock { state in
            (
                state.channels.values.filter {
                    $0.name != ChannelRegistry.defaultName && !state.provisional.contains($0.name)
                }, state.idle
            )
        }
        var idle: [String: (version: UInt64, since: Int64)] = [:]
        var due: [(channel: Channel, version: UInt64)] = []
        for channel in candidates {
            guard let version = channel.idleVersion else { continue }
            let since = before[channel.name].flatMap { $0.version == version ? $0.since : nil } ?? now
            idle[channel.name] = (version, since)
            if now - since >= nanoseconds { due.append((channel, version)) }
        }
        state.withLock { $0.idle = idle }
        var retired = 0
        for (channel, version) in due where channel.deleteIfIdle(at: version) {
            state.withLock { state in
                if state.channels[channel.name] === channel { state.channels[channel.name] = nil }
                state.idle[channel.name] = nil
            }
            retired += 1
        }
        return retired
    }

    /// Reads a channel without creating it: one that does not exist shows what a new one would.
    func read<T: Sendable>(_ name: String, _ body: (OverlayEngine, Instant) -> T) -> T {
        if let channel = existing(name), let value = try? channel.withEngine({ engine, now in body(engine, now) }) {
            return value
        }
        let engine = fresh()
        return body(engine, engine.now)
    }

    /// Every channel, by name.
    var all: [Channel] {
        state.withLock { $0.channels.values.sorted { $0.name < $1.name } }
    }
}
