/// The settings of one JSON object, one row each, those of its nested objects of fixed keys
/// included under dotted keys (`limits.maxBodyBytes`). Reading an object walks its members: each
/// is a row's value or a nested object of rows, and any other key is refused by its dotted path,
/// so that a misspelt key never leaves a default silently in place.
struct SettingTable<Target>: Sendable {
    let rows: [Setting<Target>]

    init(_ rows: [Setting<Target>]) {
        self.rows = rows
    }

    func row(_ key: String) -> Setting<Target>? { rows.first { $0.key == key } }

    /// Whether `key` names a nested object of the table: the start of a dotted row key.
    func isObject(_ key: String) -> Bool { rows.contains { $0.key.hasPrefix(key + ".") } }

    /// The table's objects: "" for its own, then every nested one (`limits`, `statusBar.colours`).
    var objects: [String] {
        var objects = [""]
        for row in rows {
            var key = Substring(row.key)
            while let dot = key.lastIndex(of: ".") {
                key = key[..<dot]
                if !objects.contains(String(key)) { objects.append(String(key)) }
            }
        }
        return objects
    }

    /// The keys the object `object` of the table ("" for its own) may have, in the table's order.
    func keys(in object: String) -> [String] {
        var keys: [String] = []
        for row in rows {
            let rest: Substring
            if object.isEmpty {
                rest = Substring(row.key)
            } else if row.key.hasPrefix(object + ".") {
                rest = row.key.dropFirst(object.count + 1)
            } else {
                continue
            }
            let key = String(rest.prefix { $0 != "." })
            if !keys.contains(key) { keys.append(key) }
        }
        return keys
    }

    /// Reads `json`, an object of the table's settings, into `target`; `path` names the object in
    /// errors ("" for the configuration itself).
    func apply(_ json: JSONValue, at path: String = "", to target: inout Target) throws(ConfigurationError) {
        try apply(json, object: "", path: path, to: &target)
    }

    /// Members in the order of their names, so that of several errors the same one is named.
    private func apply(
        _ json: JSONValue, object: String, path: String, to target: inout Target
    ) throws(ConfigurationError) {
        for (name, value) in try json.members(named: path).sorted(by: { $0.key < $1.key }) {
            let key = object.isEmpty ? name : "\(object).\(name)"
            let named = path.isEmpty ? name : "\(path).\(name)"
            if let row = row(key) {
                try row.read(.json(value), named, &target)
            } else if isObject(key) {
                try apply(value, object: key, path: named, to: &target)
            } else {
                throw ConfigurationError(key: named, reason: "unknown key")
            }
        }
    }
}
