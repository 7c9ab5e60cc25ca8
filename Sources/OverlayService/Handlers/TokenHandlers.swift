import MicroHTTP
import OverlayEngine

/// `/tokens` and `/whoami`: tokens made, listed and revoked by an admin, and what any principal
/// may ask of itself (docs/ACCESS.md).
struct TokenHandlers: Sendable {
    let guardian: AccessGuard
    let held: HeldReaders

    /// The longest a token may live: ten years.
    static let maximumLifetime: Int64 = 3650 * 86_400

    func create(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        let now = guardian.wallSeconds()
        let fields = try TokenFields.read(request, now: now)
        let (entry, secret) = try guardian.tokens.create(
            label: fields.label, grants: fields.grants, admin: fields.admin, expiresAt: fields.expiresAt, now: now)
        return HTTPResponse.json(
            201, headers: [.json, .noStore, Header(name: "Location", value: "/tokens/\(entry.id)")]
        ) {
            $0.token(entry, secret: secret)
        }
    }

    func list() throws(APIError) -> HTTPResponse {
        let entries = guardian.tokens.list(now: guardian.wallSeconds())
        return HTTPResponse.json(200, headers: [.json, .noStore]) {
            $0.beginObject()
            $0.key("tokens")
            $0.beginArray()
            for entry in entries { $0.token(entry, secret: nil) }
            $0.endArray()
            $0.endObject()
        }
    }

    func get(_ parameters: RouteParameters) throws(APIError) -> HTTPResponse {
        let id = String(parameters.value ?? "")
        guard let entry = guardian.tokens.entry(id: id, now: guardian.wallSeconds()) else { throw Self.noToken(id) }
        return HTTPResponse.json(200, headers: [.json, .noStore]) { $0.token(entry, secret: nil) }
    }

    /// Revoked at once and on disk before the answer; its held readers end now.
    func revoke(_ parameters: RouteParameters) throws(APIError) -> HTTPResponse {
        let id = String(parameters.value ?? "")
        guard try guardian.tokens.revoke(id: id, now: guardian.wallSeconds()) != nil else { throw Self.noToken(id) }
        held.end(token: id)
        return HTTPResponse(status: 204)
    }

    /// Who the request's credential names, with its grants written out in full.
    func whoami(_ parameters: RouteParameters) -> HTTPResponse {
        let principal = parameters.principal ?? guardian.anonymous
        return HTTPResponse.json(200, headers: [.json, .noStore]) {
            $0.beginObject()
            $0.key("principal")
            $0.string(principal.name)
            $0.key("label")
            if let label = principal.label { $0.string(label) } else { $0.null() }
            $0.key("grants")
            GrantsReader.write(principal.grants, to: &$0)
            $0.key("admin")
            $0.bool(principal.admin)
            $0.key("expiresAt")
            if let expiresAt = principal.expiresAt { $0.integer(expiresAt) } else { $0.null() }
            $0.endObject()
        }
    }

    private static func noToken(_ id: String) -> APIError {
        .notFound("no live token \(String(id.prefix(64)))")
    }
}

extension JSONWriter {
    /// A created token as the API shows it; `secret` only in the answer that made it.
    mutating func token(_ entry: TokenRegistry.Entry, secret: String?) {
        let principal = entry.principal
        beginObject()
        key("id")
        string(entry.id)
        key("label")
        string(principal.label ?? "")
        key("grants")
        GrantsReader.write(principal.grants, to: &self)
        key("admin")
        bool(principal.admin)
        key("expiresAt")
        if let expiresAt = principal.expiresAt { integer(expiresAt) } else { null() }
        key("createdAt")
        integer(entry.createdAt)
        key("lastUsedAt")
        let used = principal.lastUsedMinute.load(ordering: .relaxed)
        if used != 0 { integer(used) } else { null() }
        key("prefix")
        string(entry.prefix)
        if let secret {
            key("secret")
            string(secret)
        }
        endObject()
    }
}

/// The body of `POST /tokens`, read and checked: 422 naming the field, 400 for both expiries.
struct TokenFields {
    var label: String
    var grants: Grants
    var admin: Bool
    var expiresAt: Int64?

    static let known = ["label", "grants", "admin", "expires", "expiresAt"]

    static func read(_ request: HTTPRequest, now: Int64) throws(APIError) -> TokenFields {
        try FieldReader.refuseContentCoding(request)
        switch request.withHeader("Content-Type", MediaType.kind(of:)) {
        case .json, .unnamedOrForm: break
        case .text: throw .unsupportedMediaType("text/plain")
        case .multipart: throw .unsupportedMediaType("multipart/form-data")
        case .other(let type): throw .unsupportedMediaType(type)
        }
        let value: JSONValue
        do throws(JSONSyntaxError) {
            value = try JSONParser.parse(request.body)
        } catch {
            throw .invalidJSON(error)
        }
        guard case .object(let members) = value else {
            throw .badRequest("the body must be a JSON object, not \(value.typeName)")
        }
        if let unknown = members.keys.sorted().first(where: { !known.contains($0) }) {
            throw .invalidField(unknown, "is not a field of a token (\(known.joined(separator: ", ")))")
        }
        guard case .string(let label)? = members["label"] else {
            throw .invalidField("label", "is required: 1 to 64 characters")
        }
        guard (1...64).contains(label.count),
            !label.unicodeScalars.contains(where: { $0.properties.generalCategory == .control })
        else { throw .invalidField("label", "must be 1 to 64 characters, none a control character") }
        guard let grantList = members["grants"] else { throw .invalidField("grants", "is required: 1 to 32 grants") }
        let grants: Grants
        do throws(GrantsReader.Problem) {
            grants = try GrantsReader.read(grantList)
        } catch {
            throw .invalidField(error.field, error.reason)
        }
        var admin = false
        switch members["admin"] {
        case nil, .null?: break
        case .bool(let value)?: admin = value
        case let other?: throw .invalidField("admin", "must be true or false, not \(other.typeName)")
        }
        let expiresAt = try expiry(members, now: now)
        return TokenFields(label: label, grants: grants, admin: admin, expiresAt: expiresAt)
    }

    /// `expires` (a wait: seconds, or `30d`) or `expiresAt` (Unix seconds), within ten years.
    private static func expiry(_ members: [String: JSONValue], now: Int64) throws(APIError) -> Int64? {
        let lifetime = TokenHandlers.maximumLifetime
        // A null is no value, as if the member were not there.
        func given(_ name: String) -> JSONValue? { members[name] == .null ? nil : members[name] }
        switch (given("expires"), given("expiresAt")) {
        case (nil, nil):
            return nil
        case (.some, .some):
            throw .badRequest("give expires or expiresAt, not both", field: "expiresAt")
        case (let value?, nil):
            var seconds: Double?
            if case .number(let number) = value { seconds = number }
            if case .string(let text) = value { seconds = WaitText.seconds(text.trimmingSpaces()) }
            guard let seconds else {
                throw .invalidField("expires", "must be seconds, or a number with a unit s, m, h or d (30d)")
            }
            guard seconds > 0 && seconds <= Double(lifetime) else {
                throw .invalidField("expires", "must be greater than 0 and at most 3650 days")
            }
            return now + Int64(seconds.rounded(.up))
        case (nil, let value?):
            guard case .number(let number) = value, number == number.rounded(), abs(number) < 1e15 else {
                throw .invalidField("expiresAt", "must be a Unix time in whole seconds")
            }
            let time = Int64(number)
            guard time > now && time <= now + lifetime else {
                throw .invalidField("expiresAt", "must be after now and at most 3650 days from now")
            }
            return time
        }
    }
}
