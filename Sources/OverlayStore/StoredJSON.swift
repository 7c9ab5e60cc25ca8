import OverlayEngine

/// The lists a message keeps (its actions, its taps), each in one TEXT column as a JSON array of
/// flat objects, which an operator reads with sqlite3's own JSON functions; NULL when empty. Only
/// what these columns hold is read: strings, whole numbers and null, in objects in an array.
enum StoredJSON {
    enum Value: Hashable, Sendable {
        case string(String)
        case integer(Int64)
        case null
    }

    /// `[{"name": value, …}, …]`, the members in the order given.
    static func array(_ objects: [[(name: String, value: Value)]]) -> String {
        var text = "["
        for (index, object) in objects.enumerated() {
            if index > 0 { text += "," }
            text += "{"
            for (place, member) in object.enumerated() {
                if place > 0 { text += "," }
                text += quoted(member.name) + ":"
                switch member.value {
                case .string(let string): text += quoted(string)
                case .integer(let integer): text += String(integer)
                case .null: text += "null"
                }
            }
            text += "}"
        }
        return text + "]"
    }

    /// A JSON string: `"` and `\` escaped, and every control character as `\u00XX`.
    static func quoted(_ text: String) -> String {
        var quoted = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": quoted += "\\\""
            case "\\": quoted += "\\\\"
            case "\u{0}"..."\u{1F}":
                let hex = String(scalar.value, radix: 16)
                quoted += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: quoted.unicodeScalars.append(scalar)
            }
        }
        return quoted + "\""
    }

    /// The objects of an array `array(_:)` wrote (or an operator in its shape); nil for anything
    /// else, so that a damaged column fails by name instead of reading as something it is not.
    static func objects(_ text: String) -> [[String: Value]]? {
        var reader = Reader(bytes: Array(text.utf8))
        guard let objects = reader.array(), reader.atEnd else { return nil }
        return objects
    }

    private struct Reader {
        let bytes: [UInt8]
        var index = 0

        var atEnd: Bool {
            mutating get {
                skipBlanks()
                return index == bytes.count
            }
        }

        mutating func skipBlanks() {
            while index < bytes.count, [0x20, 0x09, 0x0A, 0x0D].contains(bytes[index]) { index += 1 }
        }

        mutating func take(_ byte: UInt8) -> Bool {
            skipBlanks()
            guard index < bytes.count, bytes[index] == byte else { return false }
            index += 1
            return true
        }

        mutating func array() -> [[String: Value]]? {
            guard take(UInt8(ascii: "[")) else { return nil }
            var objects: [[String: Value]] = []
            if take(UInt8(ascii: "]")) { return objects }
            repeat {
                guard let object = object() else { return nil }
                objects.append(object)
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "]")) ? objects : nil
        }

        mutating func object() -> [String: Value]? {
            guard take(UInt8(ascii: "{")) else { return nil }
            var members: [String: Value] = [:]
            if take(UInt8(ascii: "}")) { return members }
            repeat {
                guard let name = string(), take(UInt8(ascii: ":")), let value = value(), members[name] == nil else {
                    return nil
                }
                members[name] = value
            } while take(UInt8(ascii: ","))
            return take(UInt8(ascii: "}")) ? members : nil
        }

        mutating func value() -> Value? {
            skipBlanks()
            guard index < bytes.count else { return nil }
            switch bytes[index] {
            case UInt8(ascii: "\""):
                return string().map(Value.string)
            case UInt8(ascii: "n"):
                guard bytes[index...].starts(with: Array("null".utf8)) else { return nil }
                index += 4
                return .null
            default:
                let start = index
                if bytes[index] == UInt8(ascii: "-") { index += 1 }
                while index < bytes.count, (0x30...0x39).contains(bytes[index]) { index += 1 }
                return Int64(String(decoding: bytes[start..<index], as: UTF8.self)).map(Value.integer)
            }
        }

        mutating func string() -> String? {
            guard take(UInt8(ascii: "\"")) else { return nil }
            var scalars = String.UnicodeScalarView()
            var pending: [UInt8] = []
            func flush() -> Bool {
                guard !pending.isEmpty else { return true }
                guard let text = String(validating: pending, as: UTF8.self) else { return false }
                scalars.append(contentsOf: text.unicodeScalars)
                pending = []
                return true
            }
            while index < bytes.count {
                let byte = bytes[index]
                index += 1
                switch byte {
                case UInt8(ascii: "\""):
                    return flush() ? String(scalars) : nil
                case UInt8(ascii: "\\"):
                    guard flush(), index < bytes.count else { return nil }
                    let escape = bytes[index]
                    index += 1
                    switch escape {
                    case UInt8(ascii: "\""): scalars.append("\"")
                    case UInt8(ascii: "\\"): scalars.append("\\")
                    case UInt8(ascii: "/"): scalars.append("/")
                    case UInt8(ascii: "b"): scalars.append("\u{8}")
                    case UInt8(ascii: "f"): scalars.append("\u{C}")
                    case UInt8(ascii: "n"): scalars.append("\n")
                    case UInt8(ascii: "r"): scalars.append("\r")
                    case UInt8(ascii: "t"): scalars.append("\t")
                    case UInt8(ascii: "u"):
                        guard let scalar = escapedScalar() else { return nil }
                        scalars.append(scalar)
                    default: return nil
                    }
                default:
                    guard byte >= 0x20 else { return nil }
                    pending.append(byte)
                }
            }
            return nil
        }

        /// The scalar of a `\uXXXX` (the `\u` taken), with the low half of a surrogate pair.
        mutating func escapedScalar() -> Unicode.Scalar? {
            guard let high = hex4() else { return nil }
            guard (0xD800...0xDBFF).contains(high) else { return Unicode.Scalar(high) }
            guard bytes[index...].starts(with: Array("\\u".utf8)) else { return nil }
            index += 2
            guard let low = hex4(), (0xDC00...0xDFFF).contains(low) else { return nil }
            return Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
        }

        mutating func hex4() -> UInt32? {
            guard index + 4 <= bytes.count,
                let value = UInt32(String(decoding: bytes[index..<index + 4], as: UTF8.self), radix: 16)
            else { return nil }
            index += 4
            return value
        }
    }
}

/// An element of a list column (`StoredJSON`): written as one flat object, read back from it.
protocol StoredListElement: Sendable {
    var storedMembers: [(name: String, value: StoredJSON.Value)] { get }
    init?(storedMembers: [String: StoredJSON.Value])
}

extension Array: ColumnValue where Element: StoredListElement {
    var sqlValue: SQLValue { isEmpty ? .null : .text(StoredJSON.array(map(\.storedMembers))) }
    init?(sqlValue: SQLValue) {
        switch sqlValue {
        case .null: self = []
        case .text(let text):
            guard let objects = StoredJSON.objects(text) else { return nil }
            var elements: [Element] = []
            for object in objects {
                guard let element = Element(storedMembers: object) else { return nil }
                elements.append(element)
            }
            self = elements
        default: return nil
        }
    }
}

extension MessageAction: StoredListElement {
    var storedMembers: [(name: String, value: StoredJSON.Value)] {
        [("id", .string(id)), ("label", .string(label)), ("url", url.map(StoredJSON.Value.string) ?? .null)]
    }

    init?(storedMembers members: [String: StoredJSON.Value]) {
        guard case .string(let id)? = members["id"], case .string(let label)? = members["label"] else { return nil }
        switch members["url"] {
        case .string(let url)?: self.init(id: id, label: label, url: url)
        case .null?, nil: self.init(id: id, label: label)
        default: return nil
        }
    }
}

/// A tap's time is whole nanoseconds, as every time the store keeps.
extension Tap: StoredListElement {
    var storedMembers: [(name: String, value: StoredJSON.Value)] {
        [("at_ns", .integer(at.nanoseconds)), ("action", action.map(StoredJSON.Value.string) ?? .null)]
    }

    init?(storedMembers members: [String: StoredJSON.Value]) {
        guard case .integer(let at)? = members["at_ns"] else { return nil }
        switch members["action"] {
        case .string(let action)?: self.init(at: Instant(nanoseconds: at), action: action)
        case .null?, nil: self.init(at: Instant(nanoseconds: at))
        default: return nil
        }
    }
}
