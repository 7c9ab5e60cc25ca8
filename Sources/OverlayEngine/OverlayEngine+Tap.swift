// A reader's tap on the shown message or one of its actions (docs/MODEL.md §14): kept on the
// message and told to the channel's readers, so that its sender can follow it. A tap ends nothing.
extension OverlayEngine {
    /// A reader tapped the overlay (`action` nil) or the shown message's action `action`
    /// (`POST /overlay/tap`). The message keeps the tap among its last `Tap.kept`, a version is
    /// made, and the changes carry the tap for the event stream. Refused with nothing shown, and
    /// for an action the message does not have (naming `action`); neither changes anything.
    public mutating func tap(action: String?, at time: Instant) -> Applied<Result<Message, EngineError>> {
        applying { engine in
            engine.reach(time)
            guard engine.showsMessage, let actions = engine.current?.actions else { return .failure(.nothingShown) }
            if let action, !actions.contains(where: { $0.id == action }) {
                let known = actions.isEmpty ? "none" : actions.map(\.id).joined(separator: ", ")
                return .failure(
                    .invalidField(
                        field: "action", reason: "names no action of the shown message (its actions: \(known))"))
            }
            guard var message = engine.current.take() else { return .failure(.nothingShown) }
            let tap = Tap(at: engine.now, action: action)
            var taps = message.taps
            // The oldest go first: a message holds at most `Tap.kept`, however fast readers tap.
            if taps.count >= Tap.kept { taps.removeFirst(taps.count - Tap.kept + 1) }
            taps.append(tap)
            message.taps = taps
            engine.current = message
            engine.recorded.recordTap(MessageTap(message: message.id, tap: tap))
            engine.version += 1
            return .success(message)
        }
    }
}
