import OverlayEngine

// A message's actions (docs/MODEL.md §14): the one field whose value nests, read the same way from
// a JSON body and from the text of a query parameter, a form or multipart field, or a flag.
extension Field where Value == [MessageAction] {
    /// The members an action has.
    static let actionMembers = ["id", "label", "url"]

    /// A JSON array of `{"id", "label", "url"}` objects: in a JSON body as it is, elsewhere as its
    /// JSON text (`?actions=[{"id":"open",…}]`, one field, so that each name is still given once).
    /// `null` (or `[]`) is none: a PATCH removes them. A value of the wrong type is 400 naming its
    /// place (`actions[1].label`); what the engine judges (lengths, characters, URLs) is 422.
    package static func actions(_ name: String) -> Field {
        Field(name) { (value) throws(FieldProblem) in
            if value.isNull { return [] }
            let json: JSONValue
            if case .json(let parsed) = value {
                json = parsed
            } else {
                let text = try value.string()
                do {
                    json = try JSONParser.parse(Array(text.utf8))
                } catch {
                    throw FieldProblem(
                        .malformed, "must be a JSON array of actions ({\"id\", \"label\", \"url\"}), not \"\(text)\"")
                }
            }
            guard case .array(let elements) = json else {
                throw FieldProblem(.malformed, "must be an array of actions, not \(json.typeName)")
            }
            // Counted before any element is read: a body of a thousand tiny actions costs nothing.
            guard elements.count <= MessageRules.maximumActions else {
                throw FieldProblem(.invalid, "must hold at most \(MessageRules.maximumActions) actions")
            }
            var actions: [MessageAction] = []
            actions.reserveCapacity(elements.count)
            for (index, element) in elements.enumerated() {
                actions.append(try action(element, at: "[\(index)]"))
            }
            return actions
        }
    }

    private static func action(_ element: JSONValue, at place: String) throws(FieldProblem) -> MessageAction {
        guard case .object(let members) = element else {
            throw FieldProblem(.malformed, "must be an object, not \(element.typeName)", at: place)
        }
        if let unknown = members.keys.filter({ !actionMembers.contains($0) }).min() {
            throw FieldProblem(
                .malformed, "is not a member of an action; expected one of \(actionMembers.joined(separator: ", "))",
                at: "\(place).\(unknown)")
        }
        /// A member that must be a string; nil when it is absent, or null where that is allowed.
        func string(_ member: String, nullable: Bool) throws(FieldProblem) -> String? {
            switch members[member] {
            case .string(let text)?: return text
            case nil where nullable, .null? where nullable: return nil
            case nil: throw FieldProblem(.invalid, "is required", at: "\(place).\(member)")
            case let other?:
                throw FieldProblem(.malformed, "must be a string, not \(other.typeName)", at: "\(place).\(member)")
            }
        }
        return MessageAction(
            id: try string("id", nullable: false) ?? "", label: try string("label", nullable: false) ?? "",
            url: try string("url", nullable: true))
    }
}
