extension JSONValue {
    /// The members of an object of the configuration at `path` ("" for the configuration itself),
    /// or the error naming it.
    func members(named path: String) throws(ConfigurationError) -> [String: JSONValue] {
        guard case .object(let members) = self else {
            throw ConfigurationError(key: path.isEmpty ? "configuration" : path, reason: "must be an object")
        }
        return members
    }
}
