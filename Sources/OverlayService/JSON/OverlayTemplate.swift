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
    /// The JSON between the slots: one piece more than there are slots. Pieces rather than one
    /// buffer cut at offsets: appending a whole array is the cheapest copy on the read path.
    private let pieces: [[UInt8]]
    private let slots: [(slot: Slot, base: Double)]
    private let size: Int

    init(_ overlay: OverlaySnapshot, capacity: Int) {
        var writer = JSONWriter(capacity: capacity)
        writer.overlay(overlay)
        version = overlay.version
        let json = writer.bytes
        var pieces: [[UInt8]] = []
        var start = 0
        for slot in writer.slots {
            pieces.append(Array(json[start..<slot.offset]))
            start = slot.offset
        }
        pieces.append(Array(json[start...]))
        self.pieces = pieces
        slots = writer.slots.map { (Slot(rawValue: $0.tag)!, $0.base) }
        size = json.count
    }

    /// The JSON at the instant of `values`.
    func render(_ values: MovingValues) -> [UInt8] {
        var writer = JSONWriter(capacity: size + 24 * slots.count)
        for (index, (slot, base)) in slots.enumerated() {
            writer.raw(pieces[index])
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
        writer.raw(pieces[slots.count])
        return writer.bytes
    }
}
