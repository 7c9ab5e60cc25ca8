/// How urgent a waiting message is: the queue shows higher ones first (MODEL §11). The numbers
/// and names are ntfy's, so a sender that knows one knows the other.
public enum Priority: Int, CaseIterable, Comparable, Hashable, Sendable {
    case min = 1
    case low = 2
    case `default` = 3
    case high = 4
    case max = 5

    /// The name a sender may give instead of the number.
    public var name: String {
        switch self {
        case .min: "min"
        case .low: "low"
        case .default: "default"
        case .high: "high"
        case .max: "max"
        }
    }

    /// The priority a name stands for; `urgent` is ntfy's other name for `max`.
    public init?(name: String) {
        if name == "urgent" {
            self = .max
            return
        }
        guard let priority = Priority.allCases.first(where: { $0.name == name }) else { return nil }
        self = priority
    }

    public static func < (lhs: Priority, rhs: Priority) -> Bool { lhs.rawValue < rhs.rawValue }
}
