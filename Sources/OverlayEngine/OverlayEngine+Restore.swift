// Rebuilding an engine from what a store kept.
extension OverlayEngine {
    /// What a store keeps of this engine besides its messages.
    public var state: EngineState {
        // During `rotatingOut` the window still has the old orientation and the one a client PUT
        // (and was answered for) is the target: that one is kept, or a restart would lose it.
        EngineState(
            version: version, nextID: nextID, orientation: rotationTarget ?? orientation, device: device.name)
    }

    /// An engine restored from a store after a restart: the message that was shown goes back to
    /// the head of the queue and shows again from the start of its animation; the queued ones keep
    /// their order; ids and versions go on from where they were. `live` are the messages that
    /// were queued or shown, in any order; `history` the ended ones, oldest first. A device name
    /// `devices` does not know leaves the configured device.
    ///
    /// The changes are every live message (each has a new place in the queue, the shown one a new
    /// state) and the ended ones beyond `historySize` (a smaller one configured since), which are
    /// forgotten so that a store deletes them instead of loading them forever.
    public static func restored(
        configuration: EngineConfiguration, state: EngineState, live: [Message], history: [Message],
        devices: [String: DeviceProfile], now: Instant = .zero
    ) -> Applied<OverlayEngine> {
        var engine = OverlayEngine(configuration: configuration, now: now, version: state.version, nextID: state.nextID)
        let changes = engine.applying { engine in
            if let device = devices[state.device] { engine.device = device }
            engine.orientation = state.orientation
            engine.history = MessageHistory(history.suffix(configuration.historySize))
            for dropped in history.dropLast(engine.history.count) { engine.recorded.record(dropped.id) }
            let inOrder = live.sorted {
                ($0.state == .showing ? 0 : 1, $0.queueOrder) < ($1.state == .showing ? 0 : 1, $1.queueOrder)
            }
            for var message in inOrder {
                message.state = .queued
                message.shownAt = nil
                message.displayStartedAt = nil
                message.deadline = nil
                message.expiresAtDeadline = false
                engine.tailOrder += 1
                message.queueOrder = engine.tailOrder
                engine.recorded.record(message.id)
                if let key = message.key { engine.liveKeys[key] = message.id }
                engine.queue.append(message)
            }
            if !engine.queue.isEmpty {
                engine.showNextIfAny(at: now)
                engine.version += 1
            }
        }.changes
        return Applied(engine, changes: changes)
    }
}
