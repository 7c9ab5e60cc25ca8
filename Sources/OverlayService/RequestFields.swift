import MicroHTTP

/// The named values a write request carries: its query parameters and the members of its JSON
/// object body or the fields of its form body, or its plain-text body under one name.
///
/// Query values are text and are converted on reading (`duration=2.5`, `immediate=true`); JSON
/// values must already have the right type. A name given twice, in the query and the body or twice
/// in the query, is an error rather than a guess.
///
/// `package`, not internal, so that the fuzz target (Fuzz/RequestDecoderFuzz) can call it directly.
package struct RequestFields {
    private enum Source {
        case json(JSONValue)
        case query(String?)
        case text(String)
    }

    private struct Field {
        var name: String
        var source: Source
    }

    /// The fields in the order read, each name once.
    private var fields: [Field] = []
    private var index = NameIndex()

    /// Reads `request`. A plain-text body becomes the value of `textField`; an endpoint without one
    /// accepts only JSON or an empty body.
    package init(_ request: borrowing HTTPRequest, textField: String?) throws(APIError) {
        for item in request.query {
            guard add(item.name, .query(item.value.map { String(decoding: $0, as: UTF8.self) })) else {
                throw .badRequest("query parameter \(item.name) is given twice", field: item.name)
            }
        }
        switch try RequestFields.readBody(request, textField: textField) {
        case .none:
            break
        case .object(let members):
            fields.reserveCapacity(fields.count + members.count)
            for member in members {
                guard add(member.key, .json(member.value)) else {
                    throw .badRequest("\(member.key) is given both in the query and in the body", field: member.key)
                }
            }
        case .text(let text):
            guard let textField else {
                throw .badRequest("the body must be a JSON object")
            }
            guard add(textField, .text(text)) else {
                throw .badRequest("\(textField) is given both in the query and as the body", field: textField)
            }
        case .form(let form):
            for field in form {
                guard let value = String(validating: field.value, as: UTF8.self) else {
                    throw .badRequest("\(field.name) is not valid UTF-8", field: field.name)
                }
                guard add(field.name, .query(value)) else {
                    throw .badRequest(
                        "\(field.name) is given twice in the body, or in the query too", field: field.name)
                }
            }
        }
    }

    /// The names a form body's fields must all have to be read as fields rather than as the text,
    /// for each endpoint's text field.
    private static func formNames(textField: String?) -> Set<String> {
        switch textField {
        case "text": messageFields
        case "orientation": ["orientation"]
        case "device": ["device"]
        case "advance": ["advance", "to"]
        default: []
        }
    }

    private static let messageFields: Set<String> = ["kind", "text", "progress", "duration", "immediate", "key"]

    private func position(of name: String) -> Int? {
        index.position(of: name, in: fields.lazy.map { $0.name })
    }

    private func value(_ name: String) -> Source? {
        position(of: name).map { fields[$0].source }
    }

    /// Adds a field; `false` if one of that name is already there.
    private mutating func add(_ name: String, _ source: Source) -> Bool {
        guard position(of: name) == nil else { return false }
        fields.append(Field(name: name, source: source))
        index.appended(fields.lazy.map { $0.name })
        return true
    }

    private enum Body {
        case none
        case object([JSONMember])
        case text(String)
        case form([FormField])
    }

    /// JSON for `application/json`; the text, verbatim, for `text/plain`. Form-encoded (what
    /// `curl -d` sends) or no type: JSON when the first non-blank character is `{`, the fields
    /// when the body decodes as a form whose every name is in `formNames`, else the text.
    /// `multipart/form-data`: its fields. 415 for the rest. The form names are those of the
    /// endpoint whose text field is `textField`.
    private static func readBody(_ request: HTTPRequest, textField: String?) throws(APIError) -> Body {
        let isJSON: Bool
        switch request.withHeader("Content-Type", RequestFields.mediaType(of:)) {
        case .json:
            isJSON = true
        case .text:
            isJSON = false
        case .unnamedOrForm:
            let firstNonBlank = request.body.first { !isBlank($0) }
            isJSON = firstNonBlank == UInt8(ascii: "{")
            if !isJSON, !request.body.isEmpty, let form = request.formFields(), !form.isEmpty {
                let names = formNames(textField: textField)
                if form.allSatisfy({ names.contains($0.name) }) { return .form(form) }
            }
        case .multipart:
            guard let form = request.formFields() else {
                throw .badRequest("the body is not valid multipart/form-data")
            }
            return form.isEmpty ? .none : .form(form)
        case .other(let mediaType):
            throw .unsupportedMediaType(mediaType)
        }
        if isJSON {
            // No body at all is no fields; a body of blanks alone is not JSON (400, as any other).
            if request.body.isEmpty {
                return .none
            }
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
        if request.body.isEmpty { return .none }
        guard let text = String(validating: request.body, as: UTF8.self) else {
            throw .badRequest("the body is not valid UTF-8")
        }
        return .text(text)
    }

    /// A space, tab or line break: what surrounds a media type and may stand before a JSON body.
    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    /// How a `Content-Type` has the body read.
    enum MediaType: Equatable {
        /// `application/json` or any `…+json`.
        case json
        /// `text/plain`.
        case text
        /// No type (or a blank one), or `application/x-www-form-urlencoded`: what `curl -d` sends.
        case unnamedOrForm
        /// `multipart/form-data`.
        case multipart
        /// Any other type, as `mediaType(_:)` writes it.
        case other(String)
    }

    /// The `MediaType` of a `Content-Type` value (nil: none given). An ASCII value, which is all
    /// a real client sends, is read without making a String; the rest as `mediaType(_:)` reads it.
    static func mediaType(of header: UnsafeRawBufferPointer?) -> MediaType {
        guard let header else { return .unnamedOrForm }
        guard header.allSatisfy({ $0 < 0x80 }) else {
            return classify(mediaType(String(decoding: header, as: UTF8.self)))
        }
        let type = typeBytes(header)
        /// Whether the type's bytes from `offset` to its end are `name` (in lower case), with
        /// ASCII letters compared without regard to case.
        func equals(_ name: StaticString, at offset: Int = 0) -> Bool {
            let count = name.utf8CodeUnitCount
            guard offset >= 0, offset + count == type.count else { return false }
            for index in 0..<count {
                let byte = type[offset + index]
                let lower = byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
                if lower != name.utf8Start[index] { return false }
            }
            return true
        }
        if equals("application/json") || equals("+json", at: type.count - 5) { return .json }
        if equals("text/plain") { return .text }
        if type.isEmpty || equals("application/x-www-form-urlencoded") { return .unnamedOrForm }
        if equals("multipart/form-data") { return .multipart }
        return .other(String(decoding: type, as: UTF8.self).lowercased())
    }

    /// The `MediaType` a type that `mediaType(_:)` wrote names.
    static func classify(_ type: String) -> MediaType {
        switch type {
        case "application/json": .json
        case "text/plain": .text
        case "", "application/x-www-form-urlencoded": .unnamedOrForm
        case "multipart/form-data": .multipart
        default: type.hasSuffix("+json") ? .json : .other(type)
        }
    }

    /// `type/subtype` in lower case, without parameters such as `charset`.
    static func mediaType(_ header: String) -> String {
        var header = header
        return header.withUTF8 { utf8 in
            let bytes = typeBytes(UnsafeRawBufferPointer(utf8))
            let type = String(decoding: bytes, as: UTF8.self)
            // Only a type with capitals (or non-ASCII letters) needs the Unicode lower-casing.
            let isLower = bytes.allSatisfy { $0 < UInt8(ascii: "A") || ($0 > UInt8(ascii: "Z") && $0 < 0x80) }
            return isLower ? type : type.lowercased()
        }
    }

    /// A `Content-Type` value's `type/subtype` as it was written: the bytes before any `;`,
    /// without the blanks around them.
    private static func typeBytes(_ header: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var end = header.firstIndex(of: UInt8(ascii: ";")) ?? header.endIndex
        var start = header.startIndex
        while start < end, isBlank(header[start]) { start += 1 }
        while end > start, isBlank(header[end - 1]) { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: header[start..<end])
    }

    /// Fails on any name outside `allowed`: a typo (`progess`) must not be silently ignored. Of
    /// several, the first in alphabetical order is named.
    /// (A handful of names: compared in a line, which hashes nothing.)
    package func rejectUnknown(allowing allowed: [String]) throws(APIError) {
        if let unknown = fields.lazy.map({ $0.name }).filter({ !allowed.contains($0) }).min() {
            throw .badRequest(
                "unknown field \(unknown); expected one of \(allowed.sorted().joined(separator: ", "))", field: unknown)
        }
    }

    var isEmpty: Bool { fields.isEmpty }

    package func contains(_ name: String) -> Bool { position(of: name) != nil }

    package func string(_ name: String) throws(APIError) -> String? {
        switch value(name) {
        case nil: return nil
        case .json(.string(let text)), .text(let text), .query(let text?): return text
        case .query(nil): return ""
        case .json(let other): throw .badRequest("\(name) must be a string, not \(other.typeName)", field: name)
        }
    }

    /// A number; `nil` when absent. An explicit `null` is refused unless `nullable`, where it reads
    /// as `.some(nil)`.
    package func number(_ name: String) throws(APIError) -> Double? {
        switch try nullableNumber(name, nullable: false) {
        case .none: return nil
        case .some(let number): return number
        }
    }

    package func nullableNumber(_ name: String, nullable: Bool = true) throws(APIError) -> Double?? {
        switch value(name) {
        case nil:
            return nil
        case .json(.number(let number)):
            return .some(number)
        case .json(.null) where nullable:
            return .some(nil)
        case .query(let text?), .text(let text):
            let trimmed = text.trimmingSpaces()
            if nullable && trimmed == "null" { return .some(nil) }
            guard let number = Double(trimmed), number.isFinite, !trimmed.isEmpty,
                trimmed.utf8.allSatisfy({ RequestFields.numberCharacters.contains($0) })
            else { throw .badRequest("\(name) must be a number, not \"\(text)\"", field: name) }
            return .some(number)
        case .query(nil):
            throw .badRequest("\(name) must be a number", field: name)
        case .json(let other):
            throw .badRequest("\(name) must be a number, not \(other.typeName)", field: name)
        }
    }

    /// The value as JSON, for a field that may be an array or object; a query or text value is a
    /// string (a bare `?name` the empty one), so that its type is refused by name like any other.
    package func json(_ name: String) -> JSONValue? {
        switch value(name) {
        case nil: return nil
        case .json(let value): return value
        case .query(let text): return .string(text ?? "")
        case .text(let text): return .string(text)
        }
    }

    /// `true`/`false` in JSON; in a query also `1`/`0`/`yes`/`no`, and a bare `?immediate` is true.
    /// An empty value (`?immediate=`, a form's `immediate=`) is refused: it reads as "unset" to
    /// some senders and as "present" to others, so either guess would be wrong for someone.
    package func bool(_ name: String) throws(APIError) -> Bool? {
        switch value(name) {
        case nil: return nil
        case .json(.bool(let flag)): return flag
        case .query(nil): return true
        case .query(let text?), .text(let text):
            switch text.trimmingSpaces().lowercased() {
            case "":
                throw .badRequest(
                    "\(name) must be true or false, not an empty value (a bare ?\(name) is true)", field: name)
            case "true", "1", "yes", "on": return true
            case "false", "0", "no", "off": return false
            default: throw .badRequest("\(name) must be true or false, not \"\(text)\"", field: name)
            }
        case .json(let other):
            throw .badRequest("\(name) must be true or false, not \(other.typeName)", field: name)
        }
    }

    /// Decimal text as JSON writes numbers; rejects what `Double(_:)` also accepts ("inf", "0x1p3").
    private static let numberCharacters = Set("0123456789+-.eE".utf8)
}

extension StringProtocol {
    /// The text without surrounding spaces, tabs and line breaks. CR LF is one Character in Swift,
    /// equal to neither "\r" nor "\n"; its `asciiValue` is that of "\n", so it counts too
    /// (`curl -d $'0.5\r\n'` is a number). Read by ASCII value: comparing Characters compares
    /// strings, which cost more than the rest of a short query value's reading.
    func trimmingSpaces() -> String {
        let isSpaceByte: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        let isSpace: (Character) -> Bool = { $0.asciiValue.map(isSpaceByte) ?? false }
        // Most values have nothing to trim: their first and last bytes say so. (A Character that
        // is white space starts and ends with a white-space byte.)
        let untrimmed = utf8.withContiguousStorageIfAvailable { bytes in
            guard let head = bytes.first, let tail = bytes.last else { return false }
            return !isSpaceByte(head) && !isSpaceByte(tail)
        }
        if untrimmed == true { return String(self) }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
