import SignedToken

#if canImport(Glibc)
    import Glibc
#endif

/// `access.jwt` of the configuration: the algorithm signed tokens must use, the key they are
/// checked with, and the issuer and audience they must name. The key is never shown.
public struct SignedTokenSettings: Sendable, Hashable, CustomStringConvertible {
    public var algorithm: SignedTokenAlgorithm
    /// The secret (HS*), or the PEM text of the public key (RS256, ES256), as bytes.
    var key: [UInt8]
    public var issuer: String?
    public var audience: String?

    public var description: String {
        "SignedTokenSettings(algorithm: \(algorithm.rawValue), issuer: \(issuer ?? "none"), audience: "
            + "\(audience ?? "none"))"
    }
}

/// The rows of `access` (docs/ACCESS.md): anonymous grants, signed tokens, the token API.
enum AccessSettings {
    /// `access.anonymous`: `null` (the default that keeps servers configured before grants working
    /// as they did), a shorthand, or a list of grants.
    static func readAnonymous(
        _ value: FieldValue, _ name: String, _ configuration: inout ServiceConfiguration
    ) throws(ConfigurationError) {
        let json: JSONValue
        if case .json(let parsed) = value {
            json = parsed
        } else {
            do throws(FieldProblem) {
                json = .string(try value.string().trimmingSpaces())
            } catch {
                throw ConfigurationError(key: name, reason: error.reason)
            }
        }
        switch json {
        case .null:
            configuration.anonymousAccess = nil
        case .string(let text):
            guard let grants = shorthands[text] else {
                throw ConfigurationError(
                    key: name, reason: "must be read-write, read, write, none or a list of grants, not \"\(text)\"")
            }
            configuration.anonymousAccess = grants
        default:
            do throws(GrantsReader.Problem) {
                configuration.anonymousAccess = try GrantsReader.read(json, field: name)
            } catch {
                throw ConfigurationError(key: error.field, reason: error.reason)
            }
        }
    }

    static let shorthands: [String: Grants] = [
        "read-write": .readWriteAll, "read": .readAll, "write": .writeAll, "none": .none,
    ]

    /// `access.jwt`: null, or `{"algorithm", "key", "issuer", "audience"}`. An RS256 or ES256 key
    /// is a PEM file's path, read and checked here so that a bad one stops start-up.
    static func readJWT(
        _ value: FieldValue, _ name: String, _ configuration: inout ServiceConfiguration
    ) throws(ConfigurationError) {
        guard case .json(let json) = value else {
            throw ConfigurationError(key: name, reason: "must be set in the configuration file, as an object")
        }
        if json == .null {
            configuration.jwt = nil
            return
        }
        guard case .object(let members) = json else {
            throw ConfigurationError(key: name, reason: "must be an object or null, not \(json.typeName)")
        }
        let known = ["algorithm", "key", "issuer", "audience"]
        if let unknown = members.keys.sorted().first(where: { !known.contains($0) }) {
            throw ConfigurationError(
                key: "\(name).\(unknown)", reason: "is not a setting (\(known.joined(separator: ", ")))")
        }
        guard case .string(let algorithmText)? = members["algorithm"],
            let algorithm = SignedTokenAlgorithm(rawValue: algorithmText)
        else {
            let names = SignedTokenAlgorithm.allCases.map(\.rawValue).joined(separator: ", ")
            throw ConfigurationError(key: "\(name).algorithm", reason: "must be one of \(names)")
        }
        guard case .string(let keyText)? = members["key"], !keyText.isEmpty else {
            throw ConfigurationError(key: "\(name).key", reason: "is required: the secret, or a PEM file's path")
        }
        func optional(_ member: String) throws(ConfigurationError) -> String? {
            switch members[member] {
            case nil, .null?: return nil
            case .string(let text)? where !text.isEmpty: return text
            default: throw ConfigurationError(key: "\(name).\(member)", reason: "must be a non-empty string or null")
            }
        }
        let key: [UInt8]
        switch algorithm {
        case .hs256, .hs384, .hs512:
            key = Array(keyText.utf8)
        case .rs256, .es256:
            guard let text = readFile(keyText) else {
                throw ConfigurationError(key: "\(name).key", reason: "cannot read the PEM file \(keyText)")
            }
            key = text
        }
        do {
            _ = try SignedTokenVerifier(algorithm: algorithm, key: key)
        } catch {
            throw ConfigurationError(key: "\(name).key", reason: error.description)
        }
        configuration.jwt = SignedTokenSettings(
            algorithm: algorithm, key: key, issuer: try optional("issuer"), audience: try optional("audience"))
    }

    /// A small file's bytes (a PEM key is a few hundred bytes; at most 64 KiB are read).
    private static func readFile(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 64 * 1024)
        var total = 0
        while total < bytes.count {
            let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress! + total, $0.count - total) }
            if count < 0 { return nil }
            if count == 0 { break }
            total += count
        }
        return Array(bytes[..<total])
    }
}
