import OverlayEngine
import Testing

@testable import OverlayService

/// Every 10 ms from 0 to `steps` × 10 ms, each event run at its step: at each instant the
/// engine's moving values are the snapshot's, and the template of the version's first instant,
/// filled in with them, is the overlay encoded afresh at this instant: everything that moves
/// within a version is a slot. Answers the snapshots, one per step.
func fillEveryStep(
    _ engine: inout OverlayEngine, steps: Int, events: [Int: (inout OverlayEngine, Instant) -> Void],
    sourceLocation: SourceLocation = #_sourceLocation
) -> [OverlaySnapshot] {
    let encoder = OverlayEncoder(streamBufferBytes: 1 << 16)
    var snapshots: [OverlaySnapshot] = []
    var kept: OverlayTemplate?
    for step in 0...steps {
        let now = Instant(nanoseconds: Int64(step) * 10_000_000)
        engine.advance(to: now)
        events[step]?(&engine, now)
        let overlay = engine.overlay(at: now)
        let values = engine.movingValues(at: now)
        #expect(values == MovingValues(overlay), "at \(now)", sourceLocation: sourceLocation)
        if kept?.version != overlay.version { kept = encoder.template(overlay) }
        let filled = kept!.render(values)
        #expect(
            filled == encoder.body(overlay), "at \(now): \(String(decoding: filled, as: UTF8.self))",
            sourceLocation: sourceLocation)
        snapshots.append(overlay)
    }
    return snapshots
}
