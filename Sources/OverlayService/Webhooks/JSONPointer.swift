/// A JSON Pointer (RFC 6901): the members and elements to walk from a value to one inside it.
/// `""` is the value itself; `/a/0` its member `a`'s first element; `~1` stands for `/` and `~0`
/// for `~` in a name. A pointer only ever walks down, so no pointer reaches outside the value it
/// is applied to (`/..` names a member called `..`).
struct JSONPointer: Hashable, Sendable, CustomStringConvertible {
    let tokens: [String]

    /// The pointer as written.
    var description: String {
        tokens.map { "/" + $0.replacing("~", with: "~0").replacing("/", with: "~1") }.joined()
    }

    init(tokens: [String]) {
        self.tokens = tokens
    }

    /// Reads a pointer; nil and the reason when `text` is not one.
    static func parse(_ text: String) -> Result<JSONPointer, PointerSyntaxError> {
        guard !text.isEmpty else { return .success(JSONPointer(tokens: [])) }
        guard text.hasPrefix("/") else { return .failure(PointerSyntaxError(reason: "must be empty or start with /")) }
        var tokens: [String] = []
        for raw in text.dropFirst().split(separator: "/", omittingEmptySubsequences: false) {
            var token = ""
            var escaping = false
            for character in raw {
                if escaping {
                    switch character {
                    case "0": token.append("~")
                    case "1": token.append("/")
                    default: return .failure(PointerSyntaxError(reason: "~ must be followed by 0 or 1"))
                    }
                    escaping = false
                } else if character == "~" {
                    escaping = true
                } else {
                    token.append(character)
                }
            }
            if escaping { return .failure(PointerSyntaxError(reason: "~ must be followed by 0 or 1")) }
            tokens.append(token)
        }
        return .success(JSONPointer(tokens: tokens))
    }

    /// The value this pointer reaches in `value`, or nil where it reaches nothing: a missing
    /// member, an index past the end or not written as RFC 6901 writes one (`01`, `-`, `+1`).
    func resolve(in value: JSONValue) -> JSONValue? {
        var current = value
        for token in tokens {
            switch current {
            case .object(let members):
                guard let member = members[token] else { return nil }
                current = member
            case .array(let elements):
                guard let index = JSONPointer.index(token), index < elements.count else { return nil }
                current = elements[index]
            default:
                return nil
            }
        }
        return current
    }

    /// An array index as RFC 6901 writes one: `0`, or digits without a leading zero.
    private static func index(_ token: String) -> Int? {
        guard let first = token.utf8.first, first != UInt8(ascii: "0") || token.utf8.count == 1 else { return nil }
        guard token.utf8.count <= 18, token.utf8.allSatisfy({ $0 >= UInt8(ascii: "0") && $0 <= UInt8(ascii: "9") })
        else { return nil }
        return Int(token)
    }

    /// The pointer as an error names a field: `alerts[2].labels.severity`, after `base`.
    func fieldName(after base: String = "") -> String {
        var name = base
        for token in tokens {
            if JSONPointer.index(token) != nil, !name.isEmpty {
                name += "[\(token)]"
            } else {
                name += name.isEmpty ? token : ".\(token)"
            }
        }
        return name
    }
}

/// Why a text is not a JSON Pointer.
struct PointerSyntaxError: Error, Hashable, Sendable {
    var reason: String
}
