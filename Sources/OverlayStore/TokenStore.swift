import Platform

/// A token made through the API, as the store keeps it: never its secret, only the secret's
/// SHA-256 (hex) and first 8 characters.
public struct StoredToken: Sendable, Equatable {
    public var id: String
    public var hash: String
    public var prefix: String
    public var label: String
    /// The grants as the API's JSON (`[{"channels": …, "access": …}]`): the store does not read them.
    public var grants: String
    public var admin: Bool
    public var expiresAt: Int64?
    public var createdAt: Int64
    public var lastUsedAt: Int64?
    public var revokedAt: Int64?

    public init(
        id: String, hash: String, prefix: String, label: String, grants: String, admin: Bool, expiresAt: Int64?,
        createdAt: Int64, lastUsedAt: Int64? = nil, revokedAt: Int64? = nil
    ) {
        self.id = id
        self.hash = hash
        self.prefix = prefix
        self.label = label
        self.grants = grants
        self.admin = admin
        self.expiresAt = expiresAt
        self.createdAt = createdAt
        self.lastUsedAt = lastUsedAt
        self.revokedAt = revokedAt
    }
}

/// The `tokens` table, on a connection of its own: a token is made or revoked a few times a day,
/// so each change commits on its own (its caller answers once it is on disk) and never waits
/// behind the channels' group commit.
public final class TokenStore: Sendable {
    private let database: Lock<Database>

    init(path: String) throws(StoreError) {
        let database = try Database(path: path)
        do {
            try database.execute("PRAGMA busy_timeout = 5000")
            try database.execute("PRAGMA synchronous = FULL")
        } catch {
            throw StoreError("\(path) cannot be used: \(error)")
        }
        self.database = Lock(database)
    }

    private static let columns =
        "id, hash, prefix, label, grants, admin, expires_at, created_at, last_used_at, revoked_at"

    /// Every token, revoked and expired ones included, oldest first.
    public func loadAll() throws(StoreError) -> [StoredToken] {
        try database.withLock { (database) throws(StoreError) -> [StoredToken] in
            let statement = try database.prepare("SELECT \(TokenStore.columns) FROM tokens ORDER BY created_at, id")
            var tokens: [StoredToken] = []
            while try statement.step() {
                func optional(_ column: Int32) -> Int64? { statement.isNull(column) ? nil : statement.int(column) }
                tokens.append(
                    StoredToken(
                        id: statement.string(0), hash: statement.string(1), prefix: statement.string(2),
                        label: statement.string(3), grants: statement.string(4), admin: statement.int(5) != 0,
                        expiresAt: optional(6), createdAt: statement.int(7), lastUsedAt: optional(8),
                        revokedAt: optional(9)))
            }
            return tokens
        }
    }

    /// Stores a new token; returns once it is on disk.
    public func insert(_ token: StoredToken) throws(StoreError) {
        try database.withLock { (database) throws(StoreError) in
            let statement = try database.prepare(
                "INSERT INTO tokens (\(TokenStore.columns)) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)")
            statement.bind(1, token.id)
            statement.bind(2, token.hash)
            statement.bind(3, token.prefix)
            statement.bind(4, token.label)
            statement.bind(5, token.grants)
            statement.bind(6, Int64(token.admin ? 1 : 0))
            statement.bind(7, token.expiresAt)
            statement.bind(8, token.createdAt)
            statement.bind(9, token.lastUsedAt)
            statement.bind(10, token.revokedAt)
            try statement.run()
        }
    }

    /// Marks the token revoked at `time`; returns once that is on disk.
    public func revoke(id: String, at time: Int64) throws(StoreError) {
        try database.withLock { (database) throws(StoreError) in
            let statement = try database.prepare("UPDATE tokens SET revoked_at = ? WHERE id = ?")
            statement.bind(1, time)
            statement.bind(2, id)
            try statement.run()
        }
    }

    /// Stores when tokens were last used (in one transaction): a few rows a minute at most.
    public func noteUses(_ uses: [(id: String, lastUsedAt: Int64)]) throws(StoreError) {
        guard !uses.isEmpty else { return }
        try database.withLock { (database) throws(StoreError) in
            try database.execute("BEGIN IMMEDIATE")
            do throws(StoreError) {
                let statement = try database.prepare("UPDATE tokens SET last_used_at = ? WHERE id = ?")
                for use in uses {
                    statement.bind(1, use.lastUsedAt)
                    statement.bind(2, use.id)
                    try statement.run()
                }
                try database.execute("COMMIT")
            } catch {
                try? database.execute("ROLLBACK")
                throw error
            }
        }
    }
}
