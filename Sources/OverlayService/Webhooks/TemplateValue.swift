import OverlayEngine

/// What a template's message field is made of, read from a webhook's body. The operator's
/// templates write the first four (a pointer, a literal, a map, a key's prefix); the built-in
/// templates also combine values, so that every template is data read by one engine.
indirect enum TemplateValue: Hashable, Sendable {
    /// The value the pointer reaches.
    case pointer(JSONPointer)
    case literal(JSONValue)
    /// The pointed value, as text, looked up in the map; `default` where it reaches nothing or a
    /// value the map lacks.
    case mapped(JSONPointer, [String: JSONValue], default: JSONValue?)
    /// The pointed value as text after a prefix (a key: `github-run-` and the run's id).
    case prefixed(String, JSONPointer)
    /// The first value that is present.
    case first([TemplateValue])
    /// The present values as text, joined; absent when none is.
    case joined(String, [TemplateValue])
    /// Every value as text, one after another; absent when one is.
    case concatenated([TemplateValue])
    /// One value or another by a condition on the body.
    case when(TemplateCondition, TemplateValue, otherwise: TemplateValue?)

    /// The value in `element`, or nil for absent: what reaches nothing, null, or blank text.
    func evaluate(in element: JSONValue) -> JSONValue? {
        switch self {
        case .pointer(let pointer):
            return TemplateValue.present(pointer.resolve(in: element))
        case .literal(let value):
            return TemplateValue.present(value)
        case .mapped(let pointer, let map, let fallback):
            let key = TemplateValue.present(pointer.resolve(in: element)).flatMap(TemplateValue.text(of:))
            return TemplateValue.present(key.flatMap { map[$0] } ?? fallback)
        case .prefixed(let prefix, let pointer):
            return TemplateValue.present(pointer.resolve(in: element)).flatMap(TemplateValue.text(of:)).map {
                .string(prefix + $0)
            }
        case .first(let values):
            for value in values { if let found = value.evaluate(in: element) { return found } }
            return nil
        case .joined(let separator, let values):
            let parts = values.compactMap { $0.evaluate(in: element).flatMap(TemplateValue.text(of:)) }
            return parts.isEmpty ? nil : .string(parts.joined(separator: separator))
        case .concatenated(let values):
            var text = ""
            for value in values {
                guard let part = value.evaluate(in: element).flatMap(TemplateValue.text(of:)) else { return nil }
                text += part
            }
            return .string(text)
        case .when(let condition, let then, let otherwise):
            return condition.holds(in: element) ? then.evaluate(in: element) : otherwise?.evaluate(in: element)
        }
    }

    /// A value counts as absent when null or blank text.
    static func present(_ value: JSONValue?) -> JSONValue? {
        switch value {
        case .none, .null?: return nil
        case .string(let text)? where MessageRules.trimmed(text).isEmpty: return nil
        default: return value
        }
    }

    /// A value as text where text is wanted: a string as it is, a number or a boolean as its
    /// shortest JSON text (`1.0` is `1`); nil for an object or an array.
    static func text(of value: JSONValue) -> String? {
        switch value {
        case .string(let text): return text
        case .bool(let flag): return flag ? "true" : "false"
        case .number(let number):
            var writer = JSONWriter(capacity: 32)
            writer.number(number)
            return String(decoding: writer.bytes, as: UTF8.self)
        case .null, .array, .object: return nil
        }
    }

    /// Where the value comes from, as an error names it: its pointer's field, else nil.
    var source: JSONPointer? {
        switch self {
        case .pointer(let pointer), .mapped(let pointer, _, _), .prefixed(_, let pointer): pointer
        default: nil
        }
    }
}

/// A condition a built-in template tests on the body.
enum TemplateCondition: Hashable, Sendable {
    /// The pointer reaches a present value.
    case present(JSONPointer)
    /// The pointed value, as text, is one of these.
    case oneOf(JSONPointer, [String])

    func holds(in element: JSONValue) -> Bool {
        switch self {
        case .present(let pointer):
            TemplateValue.present(pointer.resolve(in: element)) != nil
        case .oneOf(let pointer, let texts):
            TemplateValue.present(pointer.resolve(in: element)).flatMap(TemplateValue.text(of:)).map(texts.contains)
                ?? false
        }
    }
}
