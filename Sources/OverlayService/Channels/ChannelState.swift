import OverlayEngine

/// What a channel's lock guards: its machine, and beside it what reads of the overlay keep.
struct ChannelState<Reader: ParkedReader> {
    var machine: ChannelStateMachine<Reader>
    var reads = OverlayReads()

    /// The answer to a read whose machine said the version is current: the kept answer of this
    /// moment, or the version's template (encoded here once per version) to fill in. The engine
    /// is reached in place through `machine`, never passed: passed beside `reads` being changed,
    /// its whole struct was copied on every read (about 130 instructions).
    mutating func currentRead(now: Instant, clock: ClockMode, encoder: OverlayEncoder) -> OverlayReads.Read {
        let version = machine.engine.version
        if let shared = reads.sharedAnswer(version: version, now: now, clock: clock) { return .shared(shared) }
        let kept =
            if let kept = reads.kept, kept.template.version == version { kept } else {
                reads.keep(encoder.template(machine.engine.overlay(at: now)))
            }
        return .fill(kept, machine.engine.movingValues(at: now), at: now)
    }
}
