import OverlayEngine

/// The overlay JSON of one version, cut where the values that move within a version go.
///
/// Within a version only time moves: `now`, and during an animation contentOffset or alpha (and
/// with contentOffset the y of every frame of the content: its resting y plus the offset; with a
/// rise the labels' y), and the status bar's alpha and offset while it hides or shows. Everything
/// else (texts, styles, frames, the animation descriptors) is written once per version; every
/// overlay answer is a template filled in with the moving values of its instant.
///
/// A class: a read takes the channel's template out from under the lock, and a reference is one
/// retain where a copy of the struct would be one per array it holds.
final class OverlayTemplate: Sendable {
    enum Slot: Int, Sendable {
        case now, contentOffset, alpha, statusBarAlpha, statusBarOffset
        /// A frame's y: its resting y (the slot's base) plus contentOffset.
        case contentY
        /// A label's y: its resting y plus contentOffset plus the rise's labelOffset.
        case labelY
    }

    let version: UInt64
    /// The JSON with a gap at each slot's offset.
    private let json: [UInt8]
    private let slots: [(offset: Int, slot: Slot, base: Double)]

    init(_ overlay: OverlaySnapshot, capacity: Int) {
        var writer = JSONWriter(capacity: capacity)
        writer.overlay(overlay)
        version = overlay.version
        json = writer.bytes
        slots = writer.slots.map { ($0.offset, Slot(rawValue: $0.tag)!, $0.base) }
    }

    /// The JSON at the instant of `values`.
    func render(_ values: MovingValues) -> [UInt8] {
        var writer = JSONWriter(capacity: json.count + 24 * slots.count)
        var start = 0
        for (offset, slot, base) in slots {
            writer.raw(json[start..<offset])
            start = offset
            switch slot {
            case .now: writer.rawSeconds(values.now)
            case .contentOffset: writer.rawNumber(values.contentOffset)
            case .alpha: writer.rawNumber(values.alpha)
            case .contentY: writer.rawNumber(base + values.contentOffset)
            case .labelY: writer.rawNumber(base + values.contentOffset + values.labelOffset)
            case .statusBarAlpha: writer.rawNumber(values.statusBarAlpha)
            case .statusBarOffset: writer.rawNumber(values.statusBarOffset)
            }
        }
        writer.raw(json[start...])
        return writer.bytes
    }
}
