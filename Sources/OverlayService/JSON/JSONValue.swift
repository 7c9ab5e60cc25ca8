/// A parsed JSON value (RFC 8259).
public enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    case number(Double)
    case string(String)
    case array([JSONValue])
    case object([String: JSONValue])

    /// A name for the value's type, for error messages.
    var typeName: String {
        switch self {
        case .null: "null"
        case .bool: "a boolean"
        case .number: "a number"
        case .string: "a string"
        case .array: "an array"
        case .object: "an object"
        }
    }
}

extension JSONValue {
    /// An object of members whose keys are known to differ.
    init(members: [JSONMember]) {
        var dictionary = [String: JSONValue](minimumCapacity: members.count)
        for member in members { dictionary[member.key] = member.value }
        self = .object(dictionary)
    }
}

/// A member of a JSON object.
public struct JSONMember: Hashable, Sendable {
    public var key: String
    public var value: JSONValue
}

/// A parsed JSON text whose top-level object keeps its members in order (see
/// `JSONParser.parseDocument`).
public enum JSONDocument: Hashable, Sendable {
    case object([JSONMember])
    case other(JSONValue)
}
