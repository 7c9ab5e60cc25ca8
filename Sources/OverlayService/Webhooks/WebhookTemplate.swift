/// How one tool's webhook body becomes messages: what the body must look like, where its list of
/// messages is (`each`), and what each message field is made of. The built-in templates and the
/// operator's own are all values of this type, read by the one `messages(from:)`.
struct WebhookTemplate: Hashable, Sendable {
    /// A message field a template may set.
    enum Field: String, CaseIterable, Hashable, Sendable {
        case text, subtitle, kind, key, priority, icon, duration, progress
        /// What a tap opens: an operator's template may point it at a URL in the body.
        case click
    }

    /// What a value in the body must be, so that a body of another shape is refused naming it.
    struct ShapeRule: Hashable, Sendable {
        enum Kind: Hashable, Sendable {
            case string, number, object, array
            /// An object whose members are all strings (Alertmanager's labels).
            case stringMap
        }
        var pointer: JSONPointer
        var kind: Kind
        var required = true
        /// The texts a string may be; nil for any.
        var oneOf: [String]? = nil
    }

    /// A message field and what it is made of.
    struct Mapping: Hashable, Sendable {
        var field: Field
        var value: TemplateValue
    }

    var shape: [ShapeRule] = []
    /// The array whose elements each make a message; nil: the body makes one.
    var each: JSONPointer? = nil
    /// The shape of each element (of the body when there is no `each`).
    var elementShape: [ShapeRule] = []
    /// An element makes a message only where this holds.
    var only: TemplateCondition? = nil
    var fields: [Mapping]
    /// A `sending` message gives way to the outcome its key already shows (late deliveries).
    var yieldsToLiveKind = false

    /// The most messages one body may make: far above a real delivery, and a bound on the work a
    /// body of tiny elements can ask for.
    static let maxMessages = 10_000

    /// One message as the body gives it: each field the template maps, with its value or nil
    /// where it maps to nothing, and the place in the body it came from (`alerts[2]`).
    struct Yield: Hashable, Sendable {
        var values: [Field: JSONValue?]
        var origin: String
        /// Where in the body each field's value was pointed from (`builds[1].title`), for an
        /// error of its value to name.
        var sources: [Field: String]
        /// Each field's pointer as the template writes it (`/title`), for a mismatch to name.
        var pointers: [Field: String] = [:]
    }

    /// The messages `body` makes, in order; a body of another shape is 400 naming the field.
    func messages(from body: JSONValue) throws(APIError) -> [Yield] {
        try Self.check(shape, in: body, at: "")
        guard let each else { return try yield(body, origin: "").map { [$0] } ?? [] }
        guard case .array(let elements) = TemplateValue.present(each.resolve(in: body)) ?? .array([]) else {
            throw APIError(
                status: 422, code: "template_mismatch",
                message: "the template's each (\(each)) must point to an array", field: each.description)
        }
        guard elements.count <= Self.maxMessages else {
            throw APIError(
                status: 422, code: "too_many_messages",
                message: "\(each.fieldName()) holds \(elements.count) elements; one delivery makes at most "
                    + "\(Self.maxMessages) messages", field: each.fieldName())
        }
        var yields: [Yield] = []
        yields.reserveCapacity(elements.count)
        for (index, element) in elements.enumerated() {
            if let made = try yield(element, origin: "\(each.fieldName())[\(index)]") { yields.append(made) }
        }
        return yields
    }

    private func yield(_ element: JSONValue, origin: String) throws(APIError) -> Yield? {
        try Self.check(elementShape, in: element, at: origin)
        if let only, !only.holds(in: element) { return nil }
        var values: [Field: JSONValue?] = [:]
        var sources: [Field: String] = [:]
        var pointers: [Field: String] = [:]
        for mapping in fields {
            values[mapping.field] = .some(mapping.value.evaluate(in: element))
            if let pointer = mapping.value.source {
                sources[mapping.field] = Self.name(pointer, after: origin)
                pointers[mapping.field] = pointer.description
            }
        }
        return Yield(values: values, origin: origin, sources: sources, pointers: pointers)
    }

    private static func name(_ pointer: JSONPointer, after origin: String) -> String {
        let name = pointer.fieldName()
        return origin.isEmpty ? name : name.isEmpty ? origin : "\(origin).\(name)"
    }

    private static func check(_ rules: [ShapeRule], in value: JSONValue, at origin: String) throws(APIError) {
        for rule in rules {
            let field = name(rule.pointer, after: origin)
            // Blank text is absent here as everywhere in a template: a blank fingerprint keys nothing.
            guard let found = TemplateValue.present(rule.pointer.resolve(in: value)) else {
                if rule.required { throw APIError.badRequest("\(field) is required", field: field) }
                continue
            }
            let fits =
                switch (rule.kind, found) {
                case (.string, .string), (.number, .number), (.object, .object), (.array, .array): true
                case (.stringMap, .object(let members)):
                    members.values.allSatisfy { if case .string = $0 { true } else { false } }
                default: false
                }
            guard fits else {
                let wanted =
                    switch rule.kind {
                    case .string: "a string"
                    case .number: "a number"
                    case .object: "an object"
                    case .array: "an array"
                    case .stringMap: "an object of strings"
                    }
                throw APIError.badRequest("\(field) must be \(wanted), not \(found.typeName)", field: field)
            }
            if let oneOf = rule.oneOf, case .string(let text) = found, !oneOf.contains(text) {
                throw APIError.badRequest(
                    "\(field) must be one of \(oneOf.joined(separator: ", ")), not \"\(text)\"", field: field)
            }
        }
    }
}
