/// One query argument: `name=value`, or a bare `name` (value `nil`).
public struct QueryItem: Hashable, Sendable {
    public var name: String
    public var value: String?

    public init(name: String, value: String?) {
        self.name = name
        self.value = value
    }
}
