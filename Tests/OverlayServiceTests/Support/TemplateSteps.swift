import OverlayEngine
import Testing

@testable import OverlayService

/// Every 10 ms from 0 to `steps` × 10 ms, each event run at its step: at each instant the
/// engine's moving values are the snapshot's, and the template of the version's first instant,
/// filled in with them, is the overlay encoded afresh at this instant: everything that moves
/// within a version is a slot, and the answers written in place (a body, an event) are that fill.
/// Answers the snapshots, one per step.
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
        // A fan-out writes its event in place, through the same slot mapping.
        let framed = Array("event: overlay\nid: \(overlay.version)\ndata: ".utf8) + filled + Array("\n\n".utf8)
        #expect(encoder.event(overlay) == framed, "at \(now)", sourceLocation: sourceLocation)
        expectFramesRead(filled, as: overlay, at: now, sourceLocation: sourceLocation)
        snapshots.append(overlay)
    }
    return snapshots
}

/// The y of every frame that moves, read back from the filled JSON, is the snapshot's: the slot
/// mapping adds the offsets each frame moves by, and no more.
private func expectFramesRead(
    _ json: [UInt8], as overlay: OverlaySnapshot, at now: Instant, sourceLocation: SourceLocation
) {
    guard let read = try? JSONParser.parse(json) else {
        Issue.record("at \(now): not JSON", sourceLocation: sourceLocation)
        return
    }
    let frames: [(String, Rect?, JSONValue?)] = [
        ("label", overlay.label?.frame, read["label"]?["frame"]),
        ("subtitle", overlay.subtitle?.frame, read["subtitle"]?["frame"]),
        ("outgoing", overlay.outgoing?.frame, read["outgoing"]?["frame"]),
        ("accessory", overlay.accessory?.frame, read["accessory"]?["frame"]),
        ("pill", overlay.pill?.frame, read["pill"]?["frame"]),
        ("progressBar", overlay.progressBar?.frame, read["progressBar"]?["frame"]),
    ]
    for (name, frame, written) in frames {
        #expect(written?["y"]?.number == frame?.y, "\(name) at \(now)", sourceLocation: sourceLocation)
    }
    #expect(read["statusBar"]?["alpha"]?.number == overlay.statusBar.alpha, sourceLocation: sourceLocation)
    #expect(read["statusBar"]?["offset"]?.number == overlay.statusBar.offset, sourceLocation: sourceLocation)
}
