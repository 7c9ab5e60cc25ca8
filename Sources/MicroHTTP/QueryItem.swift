/// One query argument: `name=value`, or a bare `name` (value `nil`), percent-decoded as a form
/// body's fields are (`URLEncoded`). The value's bytes are as decoded: the reader judges whether
/// they are text.
public struct QueryItem: Hashable, Sendable {
    public var name: String
    public var value: [UInt8]?

    public init(name: String, bytes: [UInt8]?) {
        self.name = name
        self.value = bytes
    }

    /// An argument whose value is text.
    public init(name: String, value: String?) {
        self.init(name: name, bytes: value.map { Array($0.utf8) })
    }

    /// The arguments of a query string as sent (after the `?`), in order.
    public static func items<Bytes: Collection<UInt8>>(of query: Bytes) -> [QueryItem] where Bytes.Index == Int {
        URLEncoded.pairs(query).map { QueryItem(name: String(decoding: $0.name, as: UTF8.self), bytes: $0.value) }
    }
}
