import OverlayEngine
import Synchronization
import TextMeasure

/// The font the server measures texts with (`text.font`) and the two sizes it draws them at.
public struct TextFont: Hashable, Sendable {
    /// Inter Regular from Debian's `fonts-inter`: a close stand-in for the system font.
    public var path = FontMeasurer.defaultFontPath
    public var titleSize = 13.0
    public var subtitleSize = 12.0

    public init() {}

    /// The engine's measure with this font: each width shaped by HarfBuzz (docs/MODEL.md, "Text,
    /// measured"). A font file is loaded once per process, however many configurations name it.
    public func metrics() throws(ConfigurationError) -> TextMetrics {
        let measurer = try TextFont.measurer(path)
        let (title, subtitle) = (titleSize, subtitleSize)
        return TextMetrics(name: "\(path) \(title)/\(subtitle)") { text, role in
            measurer.width(of: text, size: role == .title ? title : subtitle)
        }
    }

    private static let loaded = Mutex<[String: FontMeasurer]>([:])

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
