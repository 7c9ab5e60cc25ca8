/// How far ahead of the other waiting messages a message goes (MODEL §11): 1 (`min`) to 5
/// (`max`), highest first, then by when each joined. A message without one takes its kind's.
///
/// It is the number the server answers; the client sends any number as it is, so one out of
/// range is the server's 422 naming `priority`, not a guess here.
public struct Priority: RawRepresentable, Codable, Hashable, Sendable, Comparable, ExpressibleByIntegerLiteral,
    CustomStringConvertible
{
    public var rawValue: Int
    public init(rawValue: Int) { self.rawValue = rawValue }
    public init(integerLiteral value: Int) { self.init(rawValue: value) }

    public static let min: Priority = 1
    public static let low: Priority = 2
    /// What `info`, `sending`, `sent` and `progress` have unless the server is configured otherwise.
    public static let `default`: Priority = 3
    /// What `failed` has unless the server is configured otherwise.
    public static let high: Priority = 4
    public static let max: Priority = 5
    /// The server's other name for `max`.
    public static let urgent: Priority = max

    public static func < (lhs: Priority, rhs: Priority) -> Bool { lhs.rawValue < rhs.rawValue }

    public var description: String { String(rawValue) }
}
