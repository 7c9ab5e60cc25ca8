/// The label that rises out of the bar while the next one rises in (docs/MODEL.md §14). The
/// incoming label's motion is the engine's `labelOffset` transition; this is what is left of the
/// outgoing one.
public struct Rise: Hashable, Sendable {
    /// The text the outgoing label had.
    public var text: String
    /// The outgoing label's resting y and height: those it had. Its x and width are the incoming
    /// label's.
    public var restingY: Double
    public var height: Double

    public init(text: String, restingY: Double, height: Double) {
        self.text = text
        self.restingY = restingY
        self.height = height
    }
}
