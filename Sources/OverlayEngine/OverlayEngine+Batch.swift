/// One message of a batch (a webhook delivery): a keyed POST, and whether a late delivery of an
/// earlier state gives way to the outcome the message already shows.
public struct BatchPost: Hashable, Sendable {
    public var input: MessageInput
    /// Skips the post when its key's live message has another kind already: a `sending` that
    /// arrives after the `sent` of the same run must not undo it.
    public var yieldsToLiveKind: Bool

    public init(_ input: MessageInput, yieldsToLiveKind: Bool = false) {
        self.input = input
        self.yieldsToLiveKind = yieldsToLiveKind
    }
}

/// Why a batch was refused: the first post that failed, by its place in the batch.
public struct BatchFailure: Error, Hashable, Sendable {
    public var index: Int
    public var error: EngineError
}

extension OverlayEngine {
    /// Posts every message of a batch in order, as one event: all of them, or, where one is
    /// refused, none (the engine is left as it was, deadlines unreached). Each outcome is in
    /// the batch's order; a post that gave way (`yieldsToLiveKind`) has none.
    public mutating func post(
        batch: [BatchPost], at time: Instant
    ) -> Applied<Result<[PostOutcome?], BatchFailure>> {
        let before = self
        return applying { engine in
            // The time first: whether a key's message is still live depends on it.
            engine.reach(time)
            var outcomes: [PostOutcome?] = []
            outcomes.reserveCapacity(batch.count)
            for (index, post) in batch.enumerated() {
                if post.yieldsToLiveKind, let key = post.input.key, let kind = post.input.kind,
                    let live = engine.liveMessage(withKey: key), live.kind != kind
                {
                    outcomes.append(nil)
                    continue
                }
                switch engine.applyPost(post.input, at: time) {
                case .success(let outcome): outcomes.append(outcome)
                case .failure(let error):
                    engine = before
                    return .failure(BatchFailure(index: index, error: error))
                }
            }
            return .success(outcomes)
        }
    }

    /// The queued, shown or scheduled message with this key.
    public func liveMessage(withKey key: String) -> Message? {
        liveMessageID(withKey: key).flatMap { message(id: $0) }
    }
}
