@testable import OverlayEngine

// An engine through a restart as a store sees it: what is kept, and the engine restored from it.
// The restore suite and every suite whose state must survive a restart share these.

/// What a store kept of an engine and hands back at start-up.
struct StoredEngine {
    var state: EngineState
    var live: [Message]
    var history: [Message]

    /// What a store keeps of `engine`: the live messages in the store's order (by `queueOrder`),
    /// the history oldest first, each message with only the fields a store keeps.
    init(_ engine: OverlayEngine, version: UInt64? = nil, nextID: Int64? = nil) {
        func roundTrip(_ message: Message) -> Message {
            var stored = Message(
                id: message.id, kind: message.kind, text: message.text, state: message.state,
                postedAt: message.postedAt)
            stored.progress = message.progress
            stored.duration = message.duration
            stored.immediate = message.immediate
            stored.key = message.key
            stored.endedAt = message.endedAt
            stored.queueOrder = message.queueOrder
            return stored
        }
        state = engine.state
        state.version = version ?? state.version
        state.nextID = nextID ?? state.nextID
        live = engine.liveMessages.map(roundTrip).sorted { $0.queueOrder < $1.queueOrder }
        history = engine.history.map(roundTrip)
    }

    /// `restored(…)` of this, with its changes.
    func restore(
        configuration: EngineConfiguration = EngineConfiguration(), now: Instant = .zero
    ) -> Applied<OverlayEngine> {
        OverlayEngine.restored(
            configuration: configuration, state: state, live: live, history: history,
            devices: Dictionary(uniqueKeysWithValues: DeviceProfile.builtIn.map { ($0.name, $0) }), now: now)
    }
}

extension OverlayEngine {
    /// The engine `restored(…)` from `stored`, without its changes.
    init(configuration: EngineConfiguration, restoring stored: StoredEngine, now: Instant) {
        self = stored.restore(configuration: configuration, now: now).value
    }
}
