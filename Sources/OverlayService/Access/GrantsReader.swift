/// Grants as the API, the configuration and the store write them:
/// `[{"channels": "builds-*", "access": "write"}, …]`, 1–32 of them.
enum GrantsReader {
    static let limit = 32

    /// What is wrong with a grant list: the field (`grants[1].channels`) and why.
    struct Problem: Error, Equatable {
        var field: String
        var reason: String
    }

    /// The grants of `value`; `field` names the list in a problem.
    static func read(_ value: JSONValue, field: String = "grants") throws(Problem) -> Grants {
        guard case .array(let items) = value else {
            throw Problem(field: field, reason: "must be an array of grants, not \(value.typeName)")
        }
        guard (1...limit).contains(items.count) else {
            throw Problem(field: field, reason: "must hold 1 to \(limit) grants, not \(items.count)")
        }
        var grants: [Grant] = []
        for (index, item) in items.enumerated() {
            let at = "\(field)[\(index)]"
            guard case .object(let members) = item else {
                throw Problem(field: at, reason: "must be an object with channels and access, not \(item.typeName)")
            }
            if let unknown = members.keys.sorted().first(where: { $0 != "channels" && $0 != "access" }) {
                throw Problem(field: "\(at).\(unknown)", reason: "is not a field of a grant (channels, access)")
            }
            guard case .string(let text)? = members["channels"] else {
                throw Problem(field: "\(at).channels", reason: "is required: a channel name, * standing for any run")
            }
            guard let pattern = ChannelPattern(text) else {
                throw Problem(
                    field: "\(at).channels",
                    reason: "must be 1 to 64 of A-Z a-z 0-9 . _ - and *, not \"\(String(text.prefix(70)))\"")
            }
            guard case .string(let accessText)? = members["access"], let access = GrantAccess(rawValue: accessText)
            else {
                throw Problem(field: "\(at).access", reason: "must be read, write, read-write or deny")
            }
            grants.append(Grant(pattern, access))
        }
        return Grants(grants)
    }

    /// The grants of a JSON text (the store's).
    static func read(json: [UInt8]) throws -> Grants {
        try read(JSONParser.parse(json))
    }

    /// The grants as JSON text, in their order.
    static func json(_ grants: Grants) -> String {
        var writer = JSONWriter()
        write(grants, to: &writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    static func write(_ grants: Grants, to writer: inout JSONWriter) {
        writer.beginArray()
        for grant in grants.list {
            writer.beginObject()
            writer.key("channels")
            writer.string(grant.channels.text)
            writer.key("access")
            writer.string(grant.access.rawValue)
            writer.endObject()
        }
        writer.endArray()
    }
}
