/// Which line of the overlay a text is drawn in: they are measured at different sizes.
public enum TextRole: Hashable, Sendable {
    case title
    case subtitle
}

/// How wide a text is drawn, in points: given to the engine as a function, so that the engine
/// stays pure while the server measures with a real font (docs/MODEL.md, "Text, measured").
///
/// Two metrics are the same when their names are: a function cannot be compared, and the name
/// says which font and sizes it measures with.
public struct TextMetrics: Hashable, Sendable {
    public let name: String
    private let measure: @Sendable (String, TextRole) -> Double

    public init(name: String, _ measure: @escaping @Sendable (String, TextRole) -> Double) {
        self.name = name
        self.measure = measure
    }

    public func width(of text: String, as role: TextRole) -> Double { measure(text, role) }

    /// Every text 0 wide: for an engine that draws no text (a pill at its minimum width).
    public static let unmeasured = TextMetrics(name: "unmeasured") { _, _ in 0 }

    public static func == (lhs: TextMetrics, rhs: TextMetrics) -> Bool { lhs.name == rhs.name }
    public func hash(into hasher: inout Hasher) { hasher.combine(name) }
}

/// A message's texts as measured: the title's width and, with a subtitle, the subtitle's.
public struct MeasuredText: Hashable, Sendable {
    public var title: Double
    public var subtitle: Double?

    public init(title: Double, subtitle: Double?) {
        self.title = title
        self.subtitle = subtitle
    }
}
