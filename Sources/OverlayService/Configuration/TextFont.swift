import OverlayEngine
import Platform
import TextMeasure

/// The font the server measures texts with (`text.font`) and the two sizes it draws them at.
public struct TextFont: Hashable, Sendable {
    /// Inter Regular from Debian's `fonts-inter`: a close stand-in for the system font.
    public var path = FontMeasurer.defaultFontPath
    public var titleSize = 13.0
    public var subtitleSize = 12.0

    public init() {}

    /// The engine's measure with this font: each width shaped by HarfBuzz (docs/MODEL.md, "Text,
    /// measured") once, then remembered. A font file is loaded once per process, however many
    /// configurations name it.
    public func metrics() throws(ConfigurationError) -> TextMetrics {
        let measurer = try TextFont.measurer(path)
        let (title, subtitle) = (titleSize, subtitleSize)
        let widths = MeasuredWidths()
        return TextMetrics(name: "\(path) \(title)/\(subtitle)") { text, role in
            widths.width(of: text, role) { measurer.width(of: text, size: role == .title ? title : subtitle) }
        }
    }

    private static let loaded = Lock<[String: FontMeasurer]>([:])

    private static func measurer(_ path: String) throws(ConfigurationError) -> FontMeasurer {
        if let measurer = loaded.withLock({ $0[path] }) { return measurer }
        do {
            let measurer = try FontMeasurer(path: path)
            loaded.withLock { $0[path] = measurer }
            return measurer
        } catch {
            throw ConfigurationError(key: "text.font", reason: error.description)
        }
    }
}

/// The widths already shaped, by text and role: every version of a message's life is drawn from
/// one snapshot each, and the same texts come back ("Sending…", "Sent"), so shaping one (about
/// 10 µs) happens once. Bounded: when full it starts again, which costs one shaping per text.
final class MeasuredWidths: Sendable {
    static let capacity = 4096
    private struct Key: Hashable {
        var text: String
        var role: TextRole
    }
    private let widths = Lock<[Key: Double]>([:])

    func width(of text: String, _ role: TextRole, measure: () -> Double) -> Double {
        let key = Key(text: text, role: role)
        if let known = widths.withLock({ $0[key] }) { return known }
        // Shaped outside the lock: other channels' snapshots need not wait for it.
        let width = measure()
        widths.withLock { known in
            if known.count >= MeasuredWidths.capacity { known.removeAll(keepingCapacity: true) }
            known[key] = width
        }
        return width
    }
}
