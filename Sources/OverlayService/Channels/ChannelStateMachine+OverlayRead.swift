import OverlayEngine

// `GET /overlay` between deadlines: the machine only says whether the reader's version is current
// or a deadline has passed; the channel's `OverlayReads` makes the bytes.

extension ChannelStateMachine {
    /// What the machine says of a `GET /overlay`.
    enum OverlayRead: Equatable, Sendable {
        /// The version is the one the reader has.
        case notModified(version: UInt64)
        /// Nothing can change until the next deadline: the engine is only looked at (no advance,
        /// no record, no waiter to wake).
        case current(version: UInt64)
        /// A deadline has passed: the read must be an event (`read`), which reaches it.
        case deadlinePassed
    }

    /// Mutating though it changes nothing, so that the call reaches the machine in place under the
    /// lock: called as nonmutating, the machine's whole struct (about 2 KB) was copied out of the
    /// lock's storage on every read (about 230 instructions).
    mutating func readOverlay(unlessVersion: UInt64?, now: Instant) -> OverlayRead {
        if let deadline = engine.nextDeadline, deadline <= now { return .deadlinePassed }
        if engine.version == unlessVersion { return .notModified(version: engine.version) }
        return .current(version: engine.version)
    }
}
