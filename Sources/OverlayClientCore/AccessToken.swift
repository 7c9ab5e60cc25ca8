#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// What a credential may do on the channels its pattern matches (docs/ACCESS.md).
public struct Grant: Codable, Hashable, Sendable {
    /// The access a grant gives.
    public struct Access: OpenEnum {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        /// Every GET of the channel.
        public static let read: Access = "read"
        /// Every POST, PUT, PATCH and DELETE of the channel.
        public static let write: Access = "write"
        public static let readWrite: Access = "read-write"
        /// Nothing, over less specific grants that would give something.
        public static let deny: Access = "deny"
    }

    /// A channel name in which `*` stands for any run of name characters; `*` alone is every channel.
    public var channels: String
    public var access: Access

    public init(channels: String, access: Access) {
        self.channels = channels
        self.access = access
    }
}

/// A token made by `POST /tokens`, as the server lists it: never its secret.
///
/// Times are Unix seconds on the wall clock, as `Int64` so that they fit on 32-bit watchOS too.
public struct AccessToken: Decodable, Hashable, Sendable, Identifiable {
    /// `tok_…`: how the API names the token.
    public var id: String
    public var label: String
    public var grants: [Grant]
    /// Whether it may manage tokens.
    public var admin: Bool
    /// When it stops being valid; `nil`: never.
    public var expiresAt: Int64?
    public var createdAt: Int64
    /// Its last use, rounded down to the minute; `nil` until it is first used.
    public var lastUsedAt: Int64?
    /// The secret's first 8 characters (`ovl_ab12`), to tell which secret a token is.
    public var prefix: String

    public init(
        id: String, label: String, grants: [Grant], admin: Bool, expiresAt: Int64?, createdAt: Int64,
        lastUsedAt: Int64?, prefix: String
    ) {
        self.id = id
        self.label = label
        self.grants = grants
        self.admin = admin
        self.expiresAt = expiresAt
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.prefix = prefix
    }
}

/// The body of `POST /tokens`: the token to make.
public struct NewToken: Encodable, Hashable, Sendable {
    /// When the token stops being valid.
    public enum Expiry: Hashable, Sendable {
        case never
        /// This many seconds after it is made (`expires`).
        case after(seconds: Double)
        /// A wait the server reads, `30d`, `12h` or seconds (`expires`): `overlayd token add
        /// --expires` sends its text so that the server says why a bad one is not a wait.
        case wait(String)
        /// At this instant (`expiresAt`), sent as whole Unix seconds, rounded down.
        case at(Date)
    }

    /// 1 to 64 characters, none a control character.
    public var label: String
    /// 1 to 32 grants.
    public var grants: [Grant]
    public var admin: Bool
    public var expiry: Expiry

    public init(label: String, grants: [Grant], admin: Bool = false, expires expiry: Expiry = .never) {
        self.label = label
        self.grants = grants
        self.admin = admin
        self.expiry = expiry
    }

    private enum CodingKeys: String, CodingKey {
        case label, grants, admin, expires, expiresAt
    }

    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(label, forKey: .label)
        try container.encode(grants, forKey: .grants)
        try container.encode(admin, forKey: .admin)
        switch expiry {
        case .never: break
        case .after(let seconds): try container.encode(seconds, forKey: .expires)
        case .wait(let text): try container.encode(text, forKey: .expires)
        case .at(let date):
            try container.encode(Int64(date.timeIntervalSince1970.rounded(.down)), forKey: .expiresAt)
        }
    }
}

/// The answer of `POST /tokens`: the token, and its secret, which no later answer shows.
struct CreatedToken: Decodable {
    var token: AccessToken
    var secret: String

    private enum CodingKeys: String, CodingKey {
        case secret
    }

    /// One flat object: the token's fields and `secret` beside them.
    init(from decoder: any Decoder) throws {
        token = try AccessToken(from: decoder)
        secret = try decoder.container(keyedBy: CodingKeys.self).decode(String.self, forKey: .secret)
    }
}

/// Who a credential names, as `GET /whoami` answers: the configured `token` or `readToken`, a
/// made token's id, `jwt`, or `anonymous`.
public struct Principal: Decodable, Hashable, Sendable {
    /// `token`, `readToken`, `tok_…`, `jwt` or `anonymous`.
    public var name: String
    /// A made token's label; `nil` for the others.
    public var label: String?
    /// Written out in full: anonymous's `"read-write"` is `*` read-write.
    public var grants: [Grant]
    public var admin: Bool
    /// When the credential stops being valid, in Unix seconds; `nil`: never.
    public var expiresAt: Int64?

    private enum CodingKeys: String, CodingKey {
        case name = "principal"
        case label, grants, admin, expiresAt
    }
}
