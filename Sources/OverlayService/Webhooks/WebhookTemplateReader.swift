import OverlayEngine

/// `webhooks.templates` of the configuration: the operator's own templates, by name. Each is read
/// and checked here, literals and maps included, so that a template that could never work stops
/// start-up (exit 2 naming it) instead of refusing every delivery.
///
///     "deploys": {"each": "/builds", "text": "/title", "kind": {"pointer": "/ok",
///       "map": {"true": "sent", "false": "failed"}, "default": "info"},
///       "key": {"prefix": "build-", "pointer": "/id"}, "subtitle": {"value": "CI"}}
enum WebhookTemplateReader {
    static func read(
        _ value: FieldValue, _ name: String, _ configuration: inout ServiceConfiguration
    ) throws(ConfigurationError) {
        guard case .json(let json) = value else {
            throw ConfigurationError(key: name, reason: "must be set in the configuration file, as an object")
        }
        guard case .object(let members) = json else {
            throw ConfigurationError(key: name, reason: "must be an object of templates by name, not \(json.typeName)")
        }
        var templates: [String: WebhookTemplate] = [:]
        for (templateName, body) in members.sorted(by: { $0.key < $1.key }) {
            let key = "\(name).\(templateName)"
            guard Name.isValid(templateName) else {
                throw ConfigurationError(key: key, reason: "a template's name is 1-64 of A-Z a-z 0-9 . _ -")
            }
            guard !BuiltInTemplates.names.contains(templateName) else {
                throw ConfigurationError(key: key, reason: "is a built-in template's name")
            }
            templates[templateName] = try template(body, key: key)
        }
        configuration.webhookTemplates = templates
    }

    static func template(_ json: JSONValue, key: String) throws(ConfigurationError) -> WebhookTemplate {
        guard case .object(let members) = json else {
            throw ConfigurationError(key: key, reason: "must be an object, not \(json.typeName)")
        }
        let known = ["each"] + WebhookTemplate.Field.allCases.map(\.rawValue)
        if let unknown = members.keys.sorted().first(where: { !known.contains($0) }) {
            throw ConfigurationError(
                key: "\(key).\(unknown)", reason: "is not a template member (\(known.joined(separator: ", ")))")
        }
        var template = WebhookTemplate(fields: [])
        if let each = members["each"] {
            guard case .string(let text) = each else {
                throw ConfigurationError(key: "\(key).each", reason: "must be a JSON Pointer, not \(each.typeName)")
            }
            template.each = try pointer(text, key: "\(key).each")
        }
        guard members["text"] != nil else { throw ConfigurationError(key: "\(key).text", reason: "is required") }
        for field in WebhookTemplate.Field.allCases {
            guard let member = members[field.rawValue] else { continue }
            let value = try self.value(member, field: field, key: "\(key).\(field.rawValue)")
            template.fields.append(WebhookTemplate.Mapping(field: field, value: value))
        }
        return template
    }

    /// A pointer (a string), a literal `{"value": V}`, a map `{"pointer", "map", "default"}`, or
    /// for `key` a prefix `{"prefix", "pointer"}`.
    private static func value(
        _ json: JSONValue, field: WebhookTemplate.Field, key: String
    ) throws(ConfigurationError) -> TemplateValue {
        switch json {
        case .string(let text):
            return .pointer(try pointer(text, key: key))
        case .object(let members) where members.keys.sorted() == ["value"]:
            try check(members["value"]!, field: field, key: "\(key).value")
            return .literal(members["value"]!)
        case .object(let members) where field == .key && Set(members.keys) == ["prefix", "pointer"]:
            guard case .string(let prefix)? = members["prefix"], case .string(let text)? = members["pointer"] else {
                throw ConfigurationError(key: key, reason: "prefix and pointer must be strings")
            }
            return .prefixed(prefix, try pointer(text, key: "\(key).pointer"))
        case .object(let members) where members["pointer"] != nil:
            if let unknown = members.keys.sorted().first(where: { !["pointer", "map", "default"].contains($0) }) {
                throw ConfigurationError(key: "\(key).\(unknown)", reason: "is not one of pointer, map, default")
            }
            guard case .string(let text)? = members["pointer"] else {
                throw ConfigurationError(key: "\(key).pointer", reason: "must be a JSON Pointer string")
            }
            let pointed = try pointer(text, key: "\(key).pointer")
            let fallback = members["default"]
            if let fallback { try check(fallback, field: field, key: "\(key).default") }
            guard let mapJSON = members["map"] else {
                return fallback.map { .first([.pointer(pointed), .literal($0)]) } ?? .pointer(pointed)
            }
            guard case .object(let map) = mapJSON else {
                throw ConfigurationError(key: "\(key).map", reason: "must be an object, not \(mapJSON.typeName)")
            }
            for (raw, mapped) in map.sorted(by: { $0.key < $1.key }) {
                try check(mapped, field: field, key: "\(key).map.\(raw)")
            }
            return .mapped(pointed, map, default: fallback)
        default:
            throw ConfigurationError(
                key: key,
                reason: "must be a JSON Pointer, {\"value\": V}, {\"pointer\": P, \"map\": {...}, \"default\": V}"
                    + (field == .key ? " or {\"prefix\": S, \"pointer\": P}" : ""))
        }
    }

    private static func pointer(_ text: String, key: String) throws(ConfigurationError) -> JSONPointer {
        switch JSONPointer.parse(text) {
        case .success(let pointer): return pointer
        case .failure(let error): throw ConfigurationError(key: key, reason: "is not a JSON Pointer: \(error.reason)")
        }
    }

    /// A literal the field would refuse in every delivery is refused now.
    private static func check(
        _ literal: JSONValue, field: WebhookTemplate.Field, key: String
    ) throws(ConfigurationError) {
        guard literal != .null else {
            if field == .text { throw ConfigurationError(key: key, reason: "cannot be null: every message has a text") }
            return
        }
        var values: [WebhookTemplate.Field: JSONValue?] = [.text: .string("x")]
        values.updateValue(literal, forKey: field)
        let yield = WebhookTemplate.Yield(values: values, origin: "", sources: [:])
        do throws(APIError) {
            let post = try TemplateMessage.post(yield, priorities: KindTable(), yieldsToLiveKind: false)
            // The engine's own rules too: a literal click with a refused scheme never passes.
            if case .failure(let refusal) = MessageRules.validated(post.input, isNew: true) {
                throw APIError(refusal)
            }
        } catch {
            throw ConfigurationError(key: key, reason: error.message)
        }
    }
}
