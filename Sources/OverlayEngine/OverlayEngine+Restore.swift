// Rebuilding an engine from what a store kept: after a restart, or exactly as it was.
extension OverlayEngine {
    /// What a store keeps of this engine besides its messages.
    public var state: EngineState {
        EngineState(
            version: version, nextID: nextID, now: now, device: device.name, presentation: presentation,
            orientation: orientation,
            rotationTarget: rotationTarget, phase: phase, transition: transition, rise: rise, currentID: current?.id,
            headOrder: headOrder, tailOrder: tailOrder, statusBar: statusBar.record,
            statusBarTransient: statusBar.transient, leaving: leaving,
            heldSince: heldSince, wallClockEpoch: configuration.wallClockEpoch, announcementVersion: announcementVersion
        )
    }

    /// An engine restored from a store after a restart: the message that was shown goes back to
    /// the head of the queue and shows again from the start of its animation; the queued ones keep
    /// their order; ids and versions go on from where they were; a rotation under way is done, in
    /// the orientation it was heading for (the one a client last PUT). The status bar is at rest as
    /// it was kept (a hide or show under way is done; a hidden bar holds the queue); with
    /// `controllers` appearance its hierarchy decides again, and a bar that comes out otherwise is
    /// one more version. `live` are the messages that were queued or shown, in any order; `history`
    /// the ended ones, oldest first. A device name `devices` does not know leaves the configured
    /// device.
    ///
    /// The changes are every live message (each has a new place in the queue, the shown one a new
    /// state) and the ended ones beyond `historySize` (a smaller one configured since), which are
    /// forgotten so that a store deletes them instead of loading them forever.
    public static func restored(
        configuration: EngineConfiguration, state: EngineState, live: [Message], history: [Message],
        devices: [String: DeviceProfile], now: Instant = .zero
    ) -> Applied<OverlayEngine> {
        var engine = OverlayEngine(configuration: configuration, now: now, version: state.version, nextID: state.nextID)
        // Nothing was drawn and, unless the queue shows again, nothing is: the announcement has
        // been null since the version stored. Anything drawn now is announced at this run's version.
        if state.phase == .hidden, let announced = state.announcementVersion { engine.announcementVersion = announced }
        let changes = engine.applying { engine in
            if let device = devices[state.device] { engine.device = device }
            if let presentation = state.presentation { engine.presentation = presentation }
            engine.orientation = state.rotationTarget ?? state.orientation
            if let record = state.statusBar {
                engine.statusBar = StatusBar(
                    configuration: configuration.statusBar, curve: configuration.curve, restoring: record, now: now)
                if engine.statusBar.record != record { engine.version += 1 }
            }
            engine.history = MessageHistory(history.suffix(configuration.historySize))
            for dropped in history.dropLast(engine.history.count) { engine.recorded.record(dropped.id) }
            // Stored times move onto this run's clock: a time that was 5 s away when the last
            // run stopped is as far from the same wall-clock instant now.
            let shift =
                if let before = state.wallClockEpoch, let after = configuration.wallClockEpoch {
                    Instant(nanoseconds: before) - Instant(nanoseconds: after)
                } else { Interval.zero }
            var cameDue: [Message] = []
            let inOrder = live.sorted {
                ($0.state == .showing ? 0 : 1, $0.queueOrder) < ($1.state == .showing ? 0 : 1, $1.queueOrder)
            }
            // The shown one and those sent to the head stay ahead of every priority.
            let toHead = inOrder.count { $0.state == .showing || ($0.state == .queued && $0.queueOrder < 0) }
            engine.headOrder = -Int64(toHead)
            var headOrder = engine.headOrder
            for var message in inOrder {
                engine.recorded.record(message.id)
                if let key = message.key { engine.liveKeys[key] = message.id }
                message.priority = engine.priority(of: message)
                if message.state == .scheduled {
                    message.scheduledFor = message.scheduledFor.map { $0 + shift }
                    if let due = message.scheduledFor, due > now {
                        engine.scheduled.insert(message)
                    } else {
                        cameDue.append(message)
                    }
                    continue
                }
                if let expiry = message.expiresAt.map({ $0 + shift }) {
                    guard expiry > now else {
                        // It lapsed while the server was down.
                        if let key = message.key, engine.liveKeys[key] == message.id { engine.liveKeys[key] = nil }
                        message.state = .expired
                        message.endedAt = now
                        message.expiresAt = nil
                        engine.history.append(message)
                        continue
                    }
                    message.expiresAt = expiry
                    engine.expiries.add(id: message.id, at: expiry)
                }
                let toTheHead = message.state == .showing || message.queueOrder < 0
                message.state = .queued
                message.shownAt = nil
                message.displayStartedAt = nil
                message.deadline = nil
                message.expiresAtDeadline = false
                if toTheHead {
                    message.queueOrder = headOrder
                    headOrder += 1
                } else {
                    engine.tailOrder += 1
                    message.queueOrder = engine.tailOrder
                }
                engine.queue.append(message)
            }
            while engine.history.count > configuration.historySize {
                engine.recorded.record(engine.history.removeFirst().id)
            }
            if !engine.queue.isEmpty {
                engine.showNextIfAny(at: now)
                engine.version += 1
            }
            // Those whose time came while the server was down join now, in the order of their times.
            cameDue.sort { ($0.scheduledFor ?? now, $0.id) < ($1.scheduledFor ?? now, $1.id) }
            for var message in cameDue {
                message.joinedAt = now
                engine.place(message)
                engine.version += 1
            }
        }.changes
        return Applied(engine, changes: changes)
    }

    /// The engine exactly as it was when a store took `state` and its messages from it, within
    /// one run: its phase, animation, shown message and timers included, and the status bar with
    /// its hide or show under way and the message an overlay hiding beside it draws. `live` are the
    /// queued and shown messages, in any order; `history` every stored ended message, oldest first
    /// (one still drawn but already out of the history among them).
    public static func exactly(
        configuration: EngineConfiguration, state: EngineState, live: [Message], history: [Message],
        devices: [String: DeviceProfile]
    ) -> OverlayEngine {
        var engine = OverlayEngine(
            configuration: configuration, now: state.now, version: state.version, nextID: state.nextID)
        if let device = devices[state.device] { engine.device = device }
        if let presentation = state.presentation { engine.presentation = presentation }
        engine.orientation = state.orientation
        engine.rotationTarget = state.rotationTarget
        engine.phase = state.phase
        engine.transition = state.transition
        engine.rise = state.rise
        engine.headOrder = state.headOrder
        engine.tailOrder = state.tailOrder
        if let record = state.statusBar {
            engine.statusBar = StatusBar(
                configuration: configuration.statusBar, curve: configuration.curve, exactly: record,
                transient: state.statusBarTransient, now: state.now)
        }
        engine.leaving = state.leaving
        engine.heldSince = state.heldSince
        engine.history = MessageHistory(history.suffix(configuration.historySize))
        for message in live.sorted(by: { $0.queueOrder < $1.queueOrder }) {
            if message.id == state.currentID { continue }
            if message.state == .scheduled {
                engine.scheduled.insert(message)
                continue
            }
            if let expiry = message.expiresAt { engine.expiries.add(id: message.id, at: expiry) }
            engine.queue.append(message)
        }
        if let id = state.currentID {
            engine.current = live.first { $0.id == id } ?? history.last { $0.id == id }
        }
        for message in engine.liveMessages {
            if let key = message.key { engine.liveKeys[key] = message.id }
        }
        engine.announcementVersion = state.announcementVersion ?? state.version
        engine.noteAnnouncementRestored()
        engine.recorded = Changes()
        return engine
    }

    /// Moves the version past `version` and the next id to at least `nextID`: an engine rolled
    /// back to an earlier state shows no version, and gives no id, that a reader may have seen.
    public mutating func continueAfter(version: UInt64, nextID: Int64) {
        self.version = max(self.version, version) + 1
        self.nextID = max(self.nextID, nextID)
    }

    /// After `continueAfter`, the announcement of an engine rolled back from `undone`: a reader
    /// may have heard `undone`'s, so the same announcement keeps its version (it is not spoken
    /// twice) and another one takes the new version (a version never names two announcements).
    public mutating func continueAnnouncement(after undone: OverlayEngine) {
        announcementVersion = announced == undone.announced ? undone.announcementVersion : version
    }
}
