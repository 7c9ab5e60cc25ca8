/// One field an endpoint or the configuration takes: its name and how its value is read. Each
/// field is declared once (see `MessageFields`), and reading, the unknown-field check and the
/// form's field names all follow from the declarations.
package struct Field<Value>: Sendable {
    package let name: String
    package let read: @Sendable (FieldValue) throws(FieldProblem) -> Value

    package init(_ name: String, _ read: @escaping @Sendable (FieldValue) throws(FieldProblem) -> Value) {
        self.name = name
        self.read = read
    }

    /// The field, also taking null (JSON null, or the text `null`) for "none".
    package var nullable: Field<Value?> {
        let read = self.read
        return Field<Value?>(name) { (value) throws(FieldProblem) in value.isNull ? nil : try read(value) }
    }

    /// The field, with a rule its value must also keep (`problem` says why one does not, or nil).
    package func checked(_ problem: @escaping @Sendable (Value) -> String?) -> Field<Value> {
        let read = self.read
        return Field(name) { (raw) throws(FieldProblem) in
            let value = try read(raw)
            if let reason = problem(value) { throw FieldProblem(.invalid, reason) }
            return value
        }
    }
}

extension Field where Value == String {
    package static func string(_ name: String) -> Field {
        Field(name) { (value) throws(FieldProblem) in try value.string() }
    }
}

extension Field where Value == Double {
    package static func number(_ name: String, expected: String = "a number") -> Field {
        Field(name) { (value) throws(FieldProblem) in try value.number(expected: expected) }
    }
}

extension Field where Value == Bool {
    package static func bool(_ name: String) -> Field {
        Field(name) { (value) throws(FieldProblem) in try value.bool() }
    }
}

extension Field where Value: FixedWidthInteger & SendableMetatype {
    package static func whole(_ name: String, expected: String = "a whole number") -> Field {
        Field(name) { (value) throws(FieldProblem) in try value.whole(Value.self, expected: expected) }
    }
}

extension Field where Value: RawRepresentable & CaseIterable & SendableMetatype, Value.RawValue == String {
    package static func choice(_ name: String) -> Field {
        Field(name) { (value) throws(FieldProblem) in try value.choice(Value.self) }
    }
}

/// How a field sets its part of an endpoint's input: the rows of a `FieldSet`.
package struct FieldRule<Input>: Sendable {
    package let name: String
    package let apply: @Sendable (FieldValue, inout Input) throws(FieldProblem) -> Void

    /// A field that `set` stores in the input when it is given (`{ $0.text = $1 }`: a closure
    /// rather than a key path, whose every write goes through the runtime).
    package init<Value>(_ field: Field<Value>, _ set: @escaping @Sendable (inout Input, Value) -> Void) {
        name = field.name
        let read = field.read
        apply = { (value, input) throws(FieldProblem) in set(&input, try read(value)) }
    }

    /// A field that cannot be given here: `reason` says why.
    package static func refused(_ name: String, _ reason: String) -> FieldRule {
        FieldRule(name: name) { (_, _) throws(FieldProblem) in throw FieldProblem(.malformed, reason) }
    }

    private init(name: String, apply: @escaping @Sendable (FieldValue, inout Input) throws(FieldProblem) -> Void) {
        self.name = name
        self.apply = apply
    }
}

/// The fields an endpoint takes, and the one that a plain-text body is, if any.
package struct FieldSet<Input>: Sendable {
    package let rules: [FieldRule<Input>]
    /// The field a plain-text body (or a form body that is not the endpoint's fields) stands for.
    package let textField: String?

    /// The rules' names, made once: every request's reading looks at them.
    package let names: [String]
    /// The same names as UTF-8, for matching a JSON body's keys without making Strings of them.
    package let utf8Names: [[UInt8]]

    package init(text textField: String? = nil, _ rules: [FieldRule<Input>]) {
        self.rules = rules
        self.textField = textField
        names = rules.map(\.name)
        utf8Names = names.map { Array($0.utf8) }
    }
}
