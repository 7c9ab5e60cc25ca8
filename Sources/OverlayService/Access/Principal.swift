import Synchronization

/// Who made a request, and what they may do: anonymous, one of the configured tokens, a token
/// created through the API, or a signed token (JWT). Immutable, and a class so that a request
/// carries it with one retain; the anonymous and configured principals are made once.
final class Principal: Sendable {
    enum Kind: Sendable, Equatable {
        case anonymous
        /// `token` of the configuration: admin, read-write on every channel.
        case token
        /// `readToken` of the configuration: read on every channel.
        case readToken
        /// A token made by `POST /tokens`.
        case created(id: String)
        /// A JWT, with its `sub` claim when it has one.
        case signed(subject: String?)
    }

    let kind: Kind
    let label: String?
    let grants: Grants
    let admin: Bool
    /// Unix seconds on the wall clock from which the credential is no longer valid.
    let expiresAt: Int64?
    /// The minute a created token was last used in (Unix seconds, rounded down), 0 for never.
    let lastUsedMinute: Atomic<Int64>

    init(_ kind: Kind, label: String? = nil, grants: Grants, admin: Bool = false, expiresAt: Int64? = nil) {
        self.kind = kind
        self.label = label
        self.grants = grants
        self.admin = admin
        self.expiresAt = expiresAt
        lastUsedMinute = Atomic(0)
    }

    /// Whether the request carried a credential: only anonymous did not.
    var presentedCredential: Bool { kind != .anonymous }

    /// `principal` of `/whoami`.
    var name: String {
        switch kind {
        case .anonymous: "anonymous"
        case .token: "token"
        case .readToken: "readToken"
        case .created(let id): id
        case .signed: "jwt"
        }
    }

    /// What the access log writes: the token's id, `jwt:<sub>` (cut to 64 characters, escaped by
    /// the log's writer), or the name of the configured token; never a secret.
    var logName: String {
        switch kind {
        case .signed(let subject): "jwt:" + String((subject ?? "").prefix(64))
        default: name
        }
    }

    /// Whose bucket a write is counted in (the write rate): a created token's id or a JWT's
    /// subject; nil for the rest, which are counted by their address.
    var rateKey: String? {
        switch kind {
        case .created(let id): id
        case .signed(let subject?): "jwt:" + subject
        default: nil
        }
    }

    /// Notes a use at `now` (Unix seconds), at most one store a minute.
    func noteUse(at now: Int64) {
        let minute = now - now % 60
        if lastUsedMinute.load(ordering: .relaxed) != minute { lastUsedMinute.store(minute, ordering: .relaxed) }
    }

    func access(to channel: some StringProtocol) -> ChannelAccess { grants.access(to: channel) }
}
