import MicroHTTP

/// The named values a request carries: its query parameters and the members of its JSON object
/// body or the fields of its form body, or its plain-text body under one name.
///
/// Each value is a `FieldValue`, read as its field's type by the field (`Field`). A name given
/// twice, in the query and the body or twice in the query, is an error rather than a guess, in
/// writes and reads alike.
///
/// `package`, not internal, so that the fuzz target (Fuzz/RequestDecoderFuzz) can call it directly.
package struct FieldReader {
    private struct Entry {
        var name: String
        var value: FieldValue
    }

    /// The fields in the order read, each name once.
    private var entries: [Entry] = []
    private var index = NameIndex()

    /// The query of a read: its parameters, each name once.
    package init(query request: borrowing HTTPRequest) throws(APIError) {
        try addQuery(request)
    }

    /// Fields made by the server itself (a webhook template's message), each name once.
    package init(values: [(name: String, value: FieldValue)]) {
        for (name, value) in values { _ = add(name, value) }
    }

    /// A write's fields: the query and the body. A plain-text body (or a form body whose names are
    /// not all `fields`' own) becomes the value of `fields.textField`; an endpoint without one
    /// takes only JSON, a form of its fields, or an empty body.
    package init<Input>(_ request: borrowing HTTPRequest, _ fields: FieldSet<Input>) throws(APIError) {
        try self.init(request, textField: fields.textField, formNames: fields.names)
    }

    package init(_ request: borrowing HTTPRequest, textField: String?, formNames: [String]) throws(APIError) {
        try FieldReader.refuseContentCoding(request)
        try addQuery(request)
        switch try FieldReader.readBody(request, textField: textField, formNames: formNames) {
        case .none:
            break
        case .object(let members):
            entries.reserveCapacity(entries.count + members.count)
            for member in members {
                guard add(member.key, .json(member.value)) else {
                    throw .badRequest("\(member.key) is given both in the query and in the body", field: member.key)
                }
            }
        case .text(let text):
            guard let textField else { throw .badRequest("the body must be a JSON object") }
            guard add(textField, .text(text)) else {
                throw .badRequest("\(textField) is given both in the query and as the body", field: textField)
            }
        case .form(let form):
            for field in form {
                guard add(field.name, .text(field.value)) else {
                    throw .badRequest(
                        "\(field.name) is given twice in the body, or in the query too", field: field.name)
                }
            }
        }
    }

    private mutating func addQuery(_ request: borrowing HTTPRequest) throws(APIError) {
        for item in request.query {
            guard add(item.name, item.value.map { .text($0) } ?? .bare) else {
                throw .badRequest("query parameter \(item.name) is given twice", field: item.name)
            }
        }
    }

    /// Adds a field; `false` if one of that name is already there.
    private mutating func add(_ name: String, _ value: FieldValue) -> Bool {
        guard position(of: name) == nil else { return false }
        entries.append(Entry(name: name, value: value))
        index.appended(entries.lazy.map { $0.name })
        return true
    }

    private func position(of name: String) -> Int? {
        index.position(of: name, in: entries.lazy.map { $0.name })
    }

    /// Sets `input` from a write's fields, as `FieldReader(request, fields).read(fields, into:)`
    /// does, and with the same answer for every request. A JSON object body of the endpoint's own
    /// fields with no query (nearly every write) is read straight into the rules, without the
    /// field list and its names as Strings; anything else, and any value a rule refuses, takes the
    /// general reading, which gives the error and its message.
    package static func read<Input>(
        _ request: borrowing HTTPRequest, _ fields: FieldSet<Input>, into input: inout Input
    ) throws(APIError) {
        // A coded body takes the general reading, which refuses it.
        if request.query.isEmpty, request.contentCoding == nil, isJSONObjectBody(request),
            let members = JSONParser.knownMembers(request.body, names: fields.utf8Names)
        {
            var read = input
            if applied(members, fields, to: &read) {
                input = read
                return
            }
        }
        try FieldReader(request, fields).read(fields, into: &input)
    }

    /// Refuses a body in a content coding (415): overlayd decodes none, and every reader of a
    /// body calls this first (the fields here, `POST /tokens`' JSON). Without a body there is
    /// nothing to decode, and the query is read as always.
    package static func refuseContentCoding(_ request: borrowing HTTPRequest) throws(APIError) {
        guard !request.body.isEmpty, let coding = request.contentCoding else { return }
        throw .unsupportedEncoding(coding)
    }

    /// Whether the general reading takes the body as JSON: `application/json`, or no type (or a
    /// form's) with `{` first.
    private static func isJSONObjectBody(_ request: borrowing HTTPRequest) -> Bool {
        switch request.withHeader("Content-Type", MediaType.kind(of:)) {
        case .json: true
        case .unnamedOrForm: request.body.first { !isBlank($0) } == UInt8(ascii: "{")
        default: false
        }
    }

    /// The members' rules applied in the order `fields` declares them (the members' order), as
    /// `read(_:into:)` does; false at the first value refused.
    private static func applied<Input>(
        _ members: [(name: Int, value: JSONValue)], _ fields: FieldSet<Input>, to input: inout Input
    ) -> Bool {
        for member in members {
            do throws(FieldProblem) {
                try fields.rules[member.name].apply(.json(member.value), &input)
            } catch {
                return false
            }
        }
        return true
    }

    // MARK: - Reading

    var isEmpty: Bool { entries.isEmpty }

    package func contains(_ name: String) -> Bool { position(of: name) != nil }

    /// The value given for `name`, if any.
    package func value(_ name: String) -> FieldValue? {
        position(of: name).map { entries[$0].value }
    }

    /// `field`'s value, read as its type; nil when it is not given.
    package func read<Value>(_ field: Field<Value>) throws(APIError) -> Value? {
        guard let value = value(field.name) else { return nil }
        do throws(FieldProblem) {
            return try field.read(value)
        } catch {
            throw error.apiError(field: field.name)
        }
    }

    /// Sets `input` from the fields of `fields` that are given, in the order `fields` declares
    /// them, refusing every other name. One pass over what was given finds each field's rule.
    package func read<Input>(_ fields: FieldSet<Input>, into input: inout Input) throws(APIError) {
        var given: [(rule: Int, entry: Int)] = []
        given.reserveCapacity(entries.count)
        for (place, entry) in entries.enumerated() {
            guard let rule = fields.names.firstIndex(of: entry.name) else {
                try rejectUnknown(allowing: fields.names)
                continue
            }
            given.append((rule, place))
        }
        given.sort { $0.rule < $1.rule }
        for (rule, place) in given {
            do throws(FieldProblem) {
                try fields.rules[rule].apply(entries[place].value, &input)
            } catch {
                throw error.apiError(field: fields.rules[rule].name)
            }
        }
    }

    /// Fails on any name outside `allowed`: a typo (`progess`) must not be silently ignored. Of
    /// several, the first in alphabetical order is named.
    /// (A handful of names: compared in a line, which hashes nothing.)
    package func rejectUnknown(allowing allowed: [String]) throws(APIError) {
        if let unknown = entries.lazy.map(\.name).filter({ !allowed.contains($0) }).min() {
            throw .badRequest(
                "unknown field \(unknown); expected one of \(allowed.sorted().joined(separator: ", "))", field: unknown)
        }
    }

    // MARK: - The body

    private enum Body {
        case none
        case object([JSONMember])
        case text([UInt8])
        case form([FormField])
    }

    /// JSON for `application/json`; the text, verbatim, for `text/plain`. Form-encoded (what
    /// `curl -d` sends) or no type: JSON when the first non-blank character is `{`, the fields
    /// when the body is a form whose every name is in `formNames`, else the text.
    /// `multipart/form-data`: its fields. 415 for the rest.
    private static func readBody(
        _ request: borrowing HTTPRequest, textField: String?, formNames: [String]
    ) throws(APIError) -> Body {
        let isJSON: Bool
        switch request.withHeader("Content-Type", MediaType.kind(of:)) {
        case .json:
            isJSON = true
        case .text:
            isJSON = false
        case .unnamedOrForm:
            isJSON = request.body.first { !isBlank($0) } == UInt8(ascii: "{")
            if !isJSON, !request.body.isEmpty, let form = request.formFields(), !form.isEmpty,
                form.allSatisfy({ formNames.contains($0.name) })
            {
                return .form(form)
            }
        case .multipart:
            guard let form = request.formFields() else {
                throw .badRequest("the body is not valid multipart/form-data")
            }
            return form.isEmpty ? .none : .form(form)
        case .other(let mediaType):
            throw .unsupportedMediaType(mediaType)
        }
        // No body at all is no fields; a body of blanks alone is not JSON (400, as any other).
        if request.body.isEmpty { return .none }
        guard isJSON else { return .text(request.body) }
        let document: JSONDocument
        do {
            document = try JSONParser.parseDocument(request.body)
        } catch {
            throw .invalidJSON(error)
        }
        switch document {
        case .object(let members): return .object(members)
        case .other(let value): throw .badRequest("the body must be a JSON object, not \(value.typeName)")
        }
    }

    /// A space, tab or line break: what may stand before a JSON body.
    static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }
}
