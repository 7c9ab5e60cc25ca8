import OverlayService
import TestSupport

// The service's own JSON parser read from the tests' side: a response body or an event's data
// as a JSON value, and the accessors that pick it apart.

extension HTTPReply {
    /// The body parsed as JSON, or `.null` when it is not JSON.
    public var json: JSONValue { (try? JSONParser.parse(body)) ?? .null }

    /// The `error.code` of an error body.
    public var errorCode: String? { json["error"]?["code"]?.string }
}

extension StreamBlock {
    /// The event's data parsed as JSON, or `.null`.
    public var json: JSONValue { data.flatMap { try? JSONParser.parse(Array($0.utf8)) } ?? .null }
}

extension JSONValue {
    public subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    public subscript(index: Int) -> JSONValue? {
        if case .array(let elements) = self, elements.indices.contains(index) { return elements[index] }
        return nil
    }

    public var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    public var number: Double? {
        if case .number(let number) = self { return number }
        return nil
    }

    public var int: Int? { number.map { Int($0) } }

    public var bool: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    public var array: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    public var isNull: Bool { self == .null }
}

extension JSONValue {
    /// A frame's numbers in the order MODEL §5 writes them: x, y, width, height; nil when this is
    /// not a frame.
    public var rect: [Double]? {
        let numbers = ["x", "y", "width", "height"].compactMap { self[$0]?.number }
        return numbers.count == 4 ? numbers : nil
    }
}
