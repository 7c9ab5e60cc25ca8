import OverlayEngine

/// Reads one JSON object of the configuration, naming keys by their dotted path in errors.
struct ObjectReader {
    let members: [String: JSONValue]
    let path: String

    init(_ value: JSONValue, path: String) throws(ConfigurationError) {
        guard case .object(let members) = value else {
            throw ConfigurationError(key: path.isEmpty ? "configuration" : path, reason: "must be an object")
        }
        self.members = members
        self.path = path
    }

    var keys: [String] { members.keys.sorted() }

    func key(_ name: String) -> String { path.isEmpty ? name : "\(path).\(name)" }

    func contains(_ name: String) -> Bool { members[name] != nil }

    func isNull(_ name: String) -> Bool { members[name] == .null }

    func rejectUnknown(_ known: [String]) throws(ConfigurationError) {
        if let unknown = keys.first(where: { !known.contains($0) }) {
            throw ConfigurationError(key: key(unknown), reason: "unknown key")
        }
    }

    func object(_ name: String) throws(ConfigurationError) -> ObjectReader {
        try ObjectReader(members[name] ?? .null, path: key(name))
    }

    func object(_ name: String, _ apply: (ObjectReader) throws(ConfigurationError) -> Void) throws(ConfigurationError) {
        guard members[name] != nil else { return }
        try apply(try object(name))
    }

    func string(_ name: String, _ apply: (String) throws(ConfigurationError) -> Void) throws(ConfigurationError) {
        guard let value = members[name] else { return }
        guard case .string(let text) = value else {
            throw ConfigurationError(key: key(name), reason: "must be a string, not \(value.typeName)")
        }
        try apply(text)
    }

    /// A string or null (`nil`).
    func nullableString(
        _ name: String, _ apply: (String?) throws(ConfigurationError) -> Void
    ) throws(ConfigurationError) {
        guard let value = members[name] else { return }
        switch value {
        case .null: try apply(nil)
        case .string(let text): try apply(text)
        default: throw ConfigurationError(key: key(name), reason: "must be a string or null, not \(value.typeName)")
        }
    }

    func bool(_ name: String, _ apply: (Bool) -> Void) throws(ConfigurationError) {
        guard let value = members[name] else { return }
        guard case .bool(let flag) = value else {
            throw ConfigurationError(key: key(name), reason: "must be true or false, not \(value.typeName)")
        }
        apply(flag)
    }

    func number(_ name: String, in range: ClosedRange<Double>, _ apply: (Double) -> Void) throws(ConfigurationError) {
        guard let value = members[name] else { return }
        guard case .number(let number) = value else {
            throw ConfigurationError(key: key(name), reason: "must be a number, not \(value.typeName)")
        }
        guard range.contains(number) else {
            throw ConfigurationError(
                key: key(name), reason: "must be between \(format(range.lowerBound)) and \(format(range.upperBound))")
        }
        apply(number)
    }

    func seconds(_ name: String, in range: ClosedRange<Double>, _ apply: (Interval) -> Void) throws(ConfigurationError)
    {
        try number(name, in: range) { apply(.seconds($0)) }
    }

    func integer(_ name: String, in range: ClosedRange<Int>, _ apply: (Int) -> Void) throws(ConfigurationError) {
        try number(name, in: Double(range.lowerBound)...Double(range.upperBound)) { number in
            apply(Int(number))
        }
        if case .number(let number)? = members[name], number != number.rounded() {
            throw ConfigurationError(key: key(name), reason: "must be a whole number")
        }
    }

    func choice<T: RawRepresentable & CaseIterable>(
        _ name: String, _ type: T.Type, _ apply: (T) -> Void
    ) throws(ConfigurationError) where T.RawValue == String {
        try string(name) { text throws(ConfigurationError) in
            guard let value = T(rawValue: text) else {
                throw ConfigurationError(
                    key: key(name), reason: "must be one of \(T.allCases.map(\.rawValue).joined(separator: ", "))")
            }
            apply(value)
        }
    }

    func colour(_ name: String, _ apply: (String) -> Void) throws(ConfigurationError) {
        try string(name) { text throws(ConfigurationError) in
            let hex = text.utf8.dropFirst()
            guard text.utf8.first == UInt8(ascii: "#"), hex.count == 6,
                hex.allSatisfy({
                    (0x30...0x39).contains($0) || (0x41...0x46).contains($0) || (0x61...0x66).contains($0)
                })
            else { throw ConfigurationError(key: key(name), reason: "must be a colour as #RRGGBB") }
            apply(text.uppercased())
        }
    }

    private func format(_ number: Double) -> String {
        number == number.rounded() ? String(Int64(number)) : String(number)
    }
}
