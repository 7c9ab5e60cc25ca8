/// Where the overlay is in its cycle.
public enum Phase: String, CaseIterable, Hashable, Sendable {
    case hidden
    case showing
    case visible
    case hiding
    case rotatingOut
    case rotatingIn

    var isRotating: Bool { self == .rotatingOut || self == .rotatingIn }
}
