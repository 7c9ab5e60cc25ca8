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

        /// The slot's number at the instant of `values` (`now` is written as seconds, not a number).
        func number(_ values: MovingValues, base: Double) -> Double {
            switch self {
            case .now: values.now.seconds
            case .contentOffset: values.contentOffset
            case .alpha: values.alpha
            case .contentY: base + values.contentOffset
            case .labelY: base + values.contentOffset + values.labelOffset
            case .statusBarAlpha: values.statusBarAlpha
            case .statusBarOffset: values.statusBarOffset
            }
        }
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
            if slot == .now { writer.rawSeconds(values.now) } else { writer.rawNumber(slot.number(values, base: base)) }
        }
        writer.raw(pieces[slots.count])
        return writer.bytes
    }
}
