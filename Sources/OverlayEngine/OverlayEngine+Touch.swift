// What a person's finger does to the overlay: holding it keeps the shown message from ending by
// its time; swiping it up dismisses the message.
extension OverlayEngine {
    // MARK: - Events

    /// The finger is down on the overlay (`POST /overlay/hold`). Answers whether a hold began: a
    /// second hold changes nothing. Refused with nothing shown.
    @discardableResult
    public mutating func hold(at time: Instant) -> Applied<Result<Bool, EngineError>> {
        applying { engine in
            engine.reach(time)
            guard engine.showsMessage else { return .failure(.nothingShown) }
            guard engine.heldSince == nil else { return .success(false) }
            engine.heldSince = engine.now
            engine.version += 1
            return .success(true)
        }
    }

    /// The finger is lifted (`POST /overlay/release`). Answers whether a hold ended: a release
    /// without a hold changes nothing.
    @discardableResult
    public mutating func release(at time: Instant) -> Applied<Bool> {
        applying { engine in
            engine.reach(time)
            guard engine.heldSince != nil else { return false }
            engine.endHold(at: engine.now)
            engine.version += 1
            engine.settle()
            return true
        }
    }

    /// The overlay is swiped up (`POST /overlay/dismiss`): the shown message ends now as
    /// `dismissed`, and the next one replaces it at once or the overlay hides, as a DELETE does.
    public mutating func dismiss(at time: Instant) -> Applied<Result<Message, EngineError>> {
        applying { engine in
            engine.reach(time)
            guard engine.showsMessage, let shown = engine.current else { return .failure(.nothingShown) }
            engine.endCurrent(as: .dismissed, at: engine.now)
            let dismissed = engine.current ?? shown
            if !engine.phase.isRotating { engine.replaceOrHide(at: engine.now) }
            engine.version += 1
            engine.settle()
            return .success(dismissed)
        }
    }

    // MARK: - The hold's life

    /// Whether a message is on the overlay and has not ended: what a finger can hold or swipe.
    var showsMessage: Bool {
        phase != .hidden && current != nil && current?.state.hasEnded == false
    }

    /// When a hold ends by itself, `maxHoldDuration` after it began.
    var holdDeadline: Instant? {
        heldSince.map { $0 + configuration.maxHoldDuration }
    }

    /// Ends the hold, by a release or by its time: a display time that ran out during it ends
    /// the message now.
    mutating func endHold(at time: Instant) {
        heldSince = nil
        if current?.state.hasEnded == false, let deadline = current?.deadline, deadline <= time {
            messageTimeEnded(at: time)
        }
    }
}
