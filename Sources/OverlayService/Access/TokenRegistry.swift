import Crypto
import Dispatch
import MicroHTTP
import OverlayStore
import Platform
import Synchronization

/// The tokens made through the API: found by the SHA-256 of their secret (so that comparing a
/// secret leaks nothing of it through timing), listed, revoked, and kept in the store.
final class TokenRegistry: Sendable {
    /// One created token: its principal (grants, expiry, last use) and what the API lists of it.
    final class Entry: Sendable {
        let id: String
        let principal: Principal
        let prefix: String
        let createdAt: Int64
        fileprivate let hash: Digest

        fileprivate init(id: String, principal: Principal, prefix: String, createdAt: Int64, hash: Digest) {
            self.id = id
            self.principal = principal
            self.prefix = prefix
            self.createdAt = createdAt
            self.hash = hash
        }

        func isLive(at now: Int64) -> Bool { principal.expiresAt.map { now < $0 } ?? true }
    }

    /// What a presented secret comes to.
    enum Lookup {
        case found(Principal)
        case unknown
        case revoked
        case expired
    }

    /// A SHA-256 as four words: hashed and compared in four steps, not thirty-two.
    fileprivate struct Digest: Hashable, Sendable {
        let words: (UInt64, UInt64, UInt64, UInt64)

        init(_ bytes: [UInt8]) {
            func word(_ at: Int) -> UInt64 { bytes[at..<at + 8].reduce(0) { $0 << 8 | UInt64($1) } }
            words = (word(0), word(8), word(16), word(24))
        }

        static func == (a: Digest, b: Digest) -> Bool { a.words == b.words }
        func hash(into hasher: inout Hasher) {
            hasher.combine(words.0)
            hasher.combine(words.1)
            hasher.combine(words.2)
            hasher.combine(words.3)
        }
    }

    private struct State {
        var byHash: [Digest: Entry] = [:]
        var byID: [String: Entry] = [:]
        /// Ended tokens' hashes, revoked (true) or expired (false): their use is counted as that,
        /// not as an unknown secret. Bounded: past `endedLimit`, half are forgotten (their use is
        /// then `invalid`, which is no less a refusal).
        var ended: [Digest: Bool] = [:]
        /// Uses noted since the store last heard of them.
        var storedUse: [String: Int64] = [:]
        /// Tokens being stored, counted against the limit until they are in.
        var reserved = 0
    }

    static let secretPrefix = "ovl_"
    static let secretLength = 40
    static let idLength = 12
    private static let lowerAlphanumerics = Array("abcdefghijklmnopqrstuvwxyz0123456789".utf8)

    private let state = Lock(State())
    private let store: TokenStore?
    let limit: Int
    /// Whether any token has ever been made here: until then a server with no other credential
    /// ignores `Authorization` headers, as before tokens existed.
    private let anyToken = Atomic(false)

    /// The registry with the store's tokens; a stored grant that no longer reads is an error.
    init(store: TokenStore?, limit: Int) throws(StoreError) {
        self.store = store
        self.limit = limit
        let stored = try store?.loadAll() ?? []
        try state.withLock { (state) throws(StoreError) in
            for token in stored {
                guard let grants = try? GrantsReader.read(json: Array(token.grants.utf8)),
                    let hashBytes = TokenRegistry.bytes(hex: token.hash)
                else { throw StoreError("token \(token.id) in the data directory cannot be read") }
                let hash = Digest(hashBytes)
                if token.revokedAt != nil {
                    state.ended[hash] = true
                    continue
                }
                let principal = Principal(
                    .created(id: token.id), label: token.label, grants: grants, admin: token.admin,
                    expiresAt: token.expiresAt)
                if let used = token.lastUsedAt { principal.lastUsedMinute.store(used, ordering: .relaxed) }
                let entry = Entry(
                    id: token.id, principal: principal, prefix: token.prefix, createdAt: token.createdAt, hash: hash)
                state.byHash[hash] = entry
                state.byID[token.id] = entry
            }
        }
        anyToken.store(!stored.isEmpty, ordering: .relaxed)
    }

    var hasTokens: Bool { anyToken.load(ordering: .relaxed) }

    /// Whether `bytes` has the shape of a created token's secret: `ovl_` and 40 of `A-Z a-z 0-9`.
    static func isSecretShaped(_ bytes: some Collection<UInt8>) -> Bool {
        bytes.count == secretPrefix.utf8.count + secretLength && bytes.starts(with: secretPrefix.utf8)
            && bytes.dropFirst(secretPrefix.utf8.count).allSatisfy(isAlphanumeric)
    }

    /// `A-Z a-z 0-9`, by ranges: a lookup in the alphabet's array cost 7,400 instructions a secret.
    private static func isAlphanumeric(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
    }

    /// The token whose secret is `secret`, if it is live at `now` (Unix seconds).
    func lookUp(secret: [UInt8], now: Int64) -> Lookup {
        let hash = Digest(SHA256.hash(secret))
        let (entry, ended) = state.withLock { ($0.byHash[hash], $0.ended[hash]) }
        guard let entry else { return ended.map { $0 ? .revoked : .expired } ?? .unknown }
        guard entry.isLive(at: now) else { return .expired }
        entry.principal.noteUse(at: now)
        return .found(entry.principal)
    }

    /// Makes a token; its secret is returned here and never again. Stored before it is returned.
    func create(
        label: String, grants: Grants, admin: Bool, expiresAt: Int64?, now: Int64
    ) throws(APIError) -> (entry: Entry, secret: String) {
        let secret =
            TokenRegistry.secretPrefix
            + SystemRandom.string(
                count: TokenRegistry.secretLength, alphabet: SystemRandom.alphanumeric)
        let id = "tok_" + SystemRandom.string(count: TokenRegistry.idLength, alphabet: TokenRegistry.lowerAlphanumerics)
        let hashBytes = SHA256.hash(Array(secret.utf8))
        let principal = Principal(.created(id: id), label: label, grants: grants, admin: admin, expiresAt: expiresAt)
        let entry = Entry(
            id: id, principal: principal, prefix: String(secret.prefix(8)), createdAt: now, hash: Digest(hashBytes))
        // A place is reserved under the lock, so that the limit holds with many admins at once;
        // the store's write (an fsync) is made outside it, where lookups do not wait for it.
        try state.withLock { (state) throws(APIError) in
            TokenRegistry.purgeExpired(&state, now: now)
            let live = state.byID.count + state.reserved
            guard live < limit else {
                throw APIError(
                    status: 503, code: "too_many_tokens",
                    message: "there are \(limit) live tokens (limits.maxTokens); revoke one first",
                    headers: [Header(name: "Retry-After", value: "60")])
            }
            state.reserved += 1
        }
        do {
            try store?.insert(
                StoredToken(
                    id: id, hash: SHA256.hex(hashBytes), prefix: entry.prefix, label: label,
                    grants: GrantsReader.json(grants), admin: admin, expiresAt: expiresAt, createdAt: now))
        } catch {
            state.withLock { $0.reserved -= 1 }
            Diagnostics.write("overlayd: storing a token failed: \(error)\n")
            throw OverlayService.notStored
        }
        state.withLock { state in
            state.reserved -= 1
            state.byHash[entry.hash] = entry
            state.byID[id] = entry
        }
        anyToken.store(true, ordering: .relaxed)
        return (entry, secret)
    }

    static let endedLimit = 100_000

    /// Takes expired tokens out (their hashes kept as ended), so that tokens made and left to
    /// expire do not pile up in memory or in the cost of counting the live ones.
    private static func purgeExpired(_ state: inout State, now: Int64) {
        for entry in state.byID.values where !entry.isLive(at: now) {
            state.byID[entry.id] = nil
            state.byHash[entry.hash] = nil
            end(entry.hash, revoked: false, in: &state)
        }
    }

    private static func end(_ hash: Digest, revoked: Bool, in state: inout State) {
        state.ended[hash] = revoked
        if state.ended.count > endedLimit {
            state.ended = Dictionary(
                uniqueKeysWithValues: state.ended.prefix(endedLimit / 2).map { ($0.key, $0.value) })
        }
    }

    /// The live tokens, oldest first.
    func list(now: Int64) -> [Entry] {
        state.withLock { state in
            TokenRegistry.purgeExpired(&state, now: now)
            return Array(state.byID.values)
        }.sorted {
            ($0.createdAt, $0.id) < ($1.createdAt, $1.id)
        }
    }

    func entry(id: String, now: Int64) -> Entry? {
        state.withLock { $0.byID[id] }.flatMap { $0.isLive(at: now) ? $0 : nil }
    }

    /// Revokes the token at once and durably; nil when there is no live token of that id. The
    /// store's write comes first, outside the lock: the token is refused once that is on disk.
    func revoke(id: String, now: Int64) throws(APIError) -> Entry? {
        guard let entry = state.withLock({ $0.byID[id] }), entry.isLive(at: now) else { return nil }
        do {
            try store?.revoke(id: id, at: now)
        } catch {
            Diagnostics.write("overlayd: storing a token's revocation failed: \(error)\n")
            throw OverlayService.notStored
        }
        return state.withLock { state in
            guard state.byID.removeValue(forKey: id) != nil else { return nil }
            state.byHash[entry.hash] = nil
            TokenRegistry.end(entry.hash, revoked: true, in: &state)
            return entry
        }
    }

    /// Where the last uses are written from the heartbeat: not the scheduler's thread, which an
    /// fsync (or SQLite waiting for the channels' writer) would hold up with every deadline.
    private let useWriter = DispatchQueue(label: "overlayd.token-uses")

    /// `storeUses` on a thread of its own; `waitForStoredUses` waits for what it has queued.
    func storeUsesLater() {
        useWriter.async { [self] in storeUses() }
    }

    func waitForStoredUses() {
        useWriter.sync {}
    }

    /// Writes the last uses noted since the last call to the store (a few rows a minute at most).
    func storeUses() {
        let uses = state.withLock { state -> [(id: String, lastUsedAt: Int64)] in
            var uses: [(id: String, lastUsedAt: Int64)] = []
            for (id, entry) in state.byID {
                let minute = entry.principal.lastUsedMinute.load(ordering: .relaxed)
                guard minute != 0, state.storedUse[id] != minute else { continue }
                state.storedUse[id] = minute
                uses.append((id, minute))
            }
            return uses
        }
        do {
            try store?.noteUses(uses)
        } catch {
            Diagnostics.write("overlayd: storing tokens' last use failed: \(error)\n")
        }
    }

    private static func bytes(hex: String) -> [UInt8]? {
        let digits = Array(hex.utf8)
        guard digits.count == 64 else { return nil }
        var bytes: [UInt8] = []
        for pair in stride(from: 0, to: 64, by: 2) {
            guard let byte = UInt8(String(decoding: digits[pair..<pair + 2], as: UTF8.self), radix: 16) else {
                return nil
            }
            bytes.append(byte)
        }
        return bytes
    }
}
