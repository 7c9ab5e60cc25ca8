/// A value as a request or the configuration gives it, before it is read as its type: the one
/// way every field is read, whatever it comes from, so that `true`, `2.5` or an empty value
/// mean the same in a JSON body, a query, a form, an environment variable and a flag.
package enum FieldValue: Sendable, Equatable {
    case json(JSONValue)
    /// Text: a query parameter, a form field, a plain-text body, an environment variable or a
    /// flag, as decoded, not yet known to be UTF-8.
    case text([UInt8])
    /// A query parameter without `=` (`?immediate`).
    case bare

    /// Text that is a Swift string already.
    package static func text(_ string: String) -> FieldValue { .text(Array(string.utf8)) }

    /// The value as text, if it is text: UTF-8 or a problem. A bare parameter is the empty text.
    private func text() throws(FieldProblem) -> String? {
        switch self {
        case .json: return nil
        case .bare: return ""
        case .text(let bytes):
            guard let text = String(validating: bytes, as: UTF8.self) else {
                throw FieldProblem(.malformed, "is not valid UTF-8")
            }
            return text
        }
    }

    private var jsonTypeName: String {
        if case .json(let value) = self { return value.typeName }
        return "text"
    }

    /// The value as a refusal names it: text in quotes, or a JSON value's type.
    package var described: String {
        switch self {
        case .text(let bytes): "\"\(String(decoding: bytes, as: UTF8.self))\""
        case .bare: "an empty value"
        case .json(let value): value.typeName
        }
    }

    /// A string, as sent (a JSON string, or the text).
    package func string() throws(FieldProblem) -> String {
        if case .json(.string(let text)) = self { return text }
        guard let text = try text() else {
            throw FieldProblem(.malformed, "must be a string, not \(jsonTypeName)")
        }
        return text
    }

    /// A number: a JSON number, or decimal text as JSON writes numbers (surrounding blanks
    /// aside). `expected` names what it should be in the refusal ("a number of seconds").
    /// Digits too many for a Double read as ±infinity, in text as in JSON, so that every field's
    /// range check refuses them alike (422): the caller checks the range, never finiteness alone.
    package func number(expected: String = "a number") throws(FieldProblem) -> Double {
        if case .json(.number(let number)) = self { return number }
        if case .bare = self { throw FieldProblem(.malformed, "must be \(expected)") }
        guard let text = try text() else {
            throw FieldProblem(.malformed, "must be \(expected), not \(jsonTypeName)")
        }
        guard let number = FieldValue.decimal(text.trimmingSpaces()) else {
            throw FieldProblem(.malformed, "must be \(expected), not \"\(text)\"")
        }
        return number
    }

    /// A whole number of the type: a JSON number without a fraction, or digits.
    package func whole<Number: FixedWidthInteger>(
        _: Number.Type = Int.self, expected: String = "a whole number"
    )
        throws(FieldProblem) -> Number
    {
        if case .json(.number(let number)) = self {
            guard number == number.rounded(), let whole = Number(exactly: number) else {
                throw FieldProblem(.malformed, "must be \(expected)")
            }
            return whole
        }
        if case .bare = self { throw FieldProblem(.malformed, "must be \(expected)") }
        guard let text = try text() else {
            throw FieldProblem(.malformed, "must be \(expected), not \(jsonTypeName)")
        }
        guard let whole = Number(text.trimmingSpaces()) else {
            throw FieldProblem(.malformed, "must be \(expected), not \"\(text)\"")
        }
        return whole
    }

    /// `true`/`false` in JSON; as text also `1`/`0`/`yes`/`no`/`on`/`off`, any case, and a bare
    /// `?immediate` is true. An empty value is refused: it reads as "unset" to some senders and as
    /// "present" to others, so either guess would be wrong for someone.
    package func bool() throws(FieldProblem) -> Bool {
        switch self {
        case .json(.bool(let flag)): return flag
        case .bare: return true
        case .json: throw FieldProblem(.malformed, "must be true or false, not \(jsonTypeName)")
        case .text:
            let text = try text() ?? ""
            switch text.trimmingSpaces().lowercased() {
            case "": throw FieldProblem(.malformed, "must be true or false, not an empty value")
            case "true", "1", "yes", "on": return true
            case "false", "0", "no", "off": return false
            default: throw FieldProblem(.malformed, "must be true or false, not \"\(text)\"")
            }
        }
    }

    /// One of an enumeration's names, exactly as the API spells them (surrounding blanks aside).
    package func choice<Choice: RawRepresentable & CaseIterable>(_: Choice.Type) throws(FieldProblem) -> Choice
    where Choice.RawValue == String {
        guard let choice = Choice(rawValue: try string().trimmingSpaces()) else {
            throw FieldProblem(.invalid, "must be one of \(Choice.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        return choice
    }

    /// The value as JSON, for a field that may be an array or an object: text is a string (a bare
    /// parameter the empty one), so that its type is refused by name like any other.
    package var json: JSONValue {
        switch self {
        case .json(let value): value
        case .text(let bytes): .string(String(decoding: bytes, as: UTF8.self))
        case .bare: .string("")
        }
    }

    /// Whether the value is null: JSON null, or the text `null`.
    package var isNull: Bool {
        switch self {
        case .json(.null): true
        case .text(let bytes): String(decoding: bytes, as: UTF8.self).trimmingSpaces() == "null"
        case .json, .bare: false
        }
    }

    /// Decimal text as JSON writes numbers; refuses what `Double(_:)` also takes ("inf", "0x1p3").
    static let numberCharacters = Set("0123456789+-.eE".utf8)

    /// Decimal text as a number, the one reading of every field's text. Digits too many for a
    /// Double read as ±infinity, as the JSON parser reads them, for the range checks to refuse.
    static func decimal(_ text: String) -> Double? {
        guard !text.isEmpty, text.utf8.allSatisfy({ numberCharacters.contains($0) }), let number = Double(text),
            !number.isNaN
        else { return nil }
        return number
    }
}

/// Why a value could not be read, in words that follow its name: "must be a number, not …".
package struct FieldProblem: Error, Equatable {
    package enum Kind: Sendable, Equatable {
        /// Not of the field's type at all (400 in a request).
        case malformed
        /// Of the right type, but not a value the field takes (422 in a request).
        case invalid
    }

    package var kind: Kind
    package var reason: String
    /// Where inside the field's value the problem is (`[1].label` of `actions`); empty for the
    /// value as a whole.
    package var place: String

    package init(_ kind: Kind, _ reason: String, at place: String = "") {
        self.kind = kind
        self.reason = reason
        self.place = place
    }

    /// The refusal of a request's field `name` (or of the place in it the problem is at).
    package func apiError(field name: String) -> APIError {
        let name = name + place
        return switch kind {
        case .malformed: .badRequest("\(name) \(reason)", field: name)
        case .invalid: .invalidField(name, reason)
        }
    }
}
