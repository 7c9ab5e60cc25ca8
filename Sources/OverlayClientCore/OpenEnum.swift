/// A name from overlayd's vocabulary (a phase, a kind, an orientation…) that a newer server may
/// add to: a name this client does not know decodes as itself instead of failing the whole overlay.
///
/// The known names are static members (`Overlay.Phase.showing`), so a `switch` reads like one
/// over an enum, with a `default` for names that came later.
public protocol OpenEnum: RawRepresentable, Codable, Hashable, Sendable, ExpressibleByStringLiteral,
    CustomStringConvertible
where RawValue == String {
    init(rawValue: String)
}

extension OpenEnum {
    public init(stringLiteral value: String) {
        self.init(rawValue: value)
    }

    public var description: String { rawValue }
}
