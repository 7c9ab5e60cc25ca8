import Crypto
import MicroHTTP
import Platform

/// Who may do what: the credential a request carries, resolved to a principal; that principal's
/// access to what the route needs; and the write rate per principal.
final class AccessGuard: Sendable {
    private let writeToken: [UInt8]?
    private let readToken: [UInt8]?
    private let limiter: RateLimiter?
    /// Which web pages may read and write (CORS, forged writes, DNS rebinding).
    let crossOrigin: CrossOriginPolicy
    let tokens: TokenRegistry
    let signed: SignedTokens?
    let failures: AuthFailureCounts
    /// Unix seconds on the wall clock: what expiries are judged on, in both clock modes.
    let wallSeconds: @Sendable () -> Int64

    let anonymous: Principal
    private let writeTokenPrincipal = Principal(.token, grants: .readWriteAll, admin: true)
    private let readTokenPrincipal = Principal(.readToken, grants: .readAll)
    /// With no credential configured, `Authorization` headers are ignored as they always were.
    private let credentialsConfigured: Bool

    init(
        configuration: ServiceConfiguration, tokens: TokenRegistry, signed: SignedTokens?,
        wallSeconds: @escaping @Sendable () -> Int64
    ) {
        crossOrigin = CrossOriginPolicy(configuration: configuration)
        writeToken = configuration.token.map { Array($0.utf8) }
        readToken = configuration.readToken.map { Array($0.utf8) }
        limiter =
            configuration.writesPerSecond > 0
            ? RateLimiter(rate: configuration.writesPerSecond, burst: Double(configuration.writeBurst)) : nil
        self.tokens = tokens
        self.signed = signed
        self.wallSeconds = wallSeconds
        failures = AuthFailureCounts()
        anonymous = Principal(.anonymous, grants: configuration.anonymousGrants)
        credentialsConfigured = configuration.token != nil || configuration.readToken != nil || signed != nil
    }

    /// The access a request for no route is checked with: what its method would need.
    static func impliedAccess(of method: String) -> Route.Access {
        switch method {
        case "POST", "PUT", "PATCH", "DELETE": .write
        case "OPTIONS": .open
        default: .read
        }
    }

    /// The request's principal, once its credential, its origin, its access to `channel` (for the
    /// channel's routes) and the write rate allow the request; else the refusal (401, 403, 429).
    /// `resolved` is told the principal as soon as its credential is accepted, so that a refusal
    /// of its access is logged under it. Open routes check nothing but the web page's host, so
    /// that health checks and CORS preflights work.
    @discardableResult
    func check(
        _ request: HTTPRequest, _ access: Route.Access, channel: Substring, resolved: (Principal) -> Void = { _ in }
    ) throws(APIError) -> Principal {
        try crossOrigin.checkHost(request)
        if access == .open || access == .subrequest || request.method == "OPTIONS" { return anonymous }
        // What a request changes is a write whatever the route needs: a GET of an admin's route
        // reads, takes `?auth=` and spends no write rate.
        let write = request.method != "GET" && request.method != "HEAD"
        // A webhook sender often cannot set a header: a write through a template takes `?auth=`.
        let queryCredential = !write || AccessGuard.isTemplateWrite(request)
        if !queryCredential, credentialsConfigured || tokens.hasTokens,
            request.query.contains(where: { $0.name == "auth" })
        {
            throw .badRequest(
                "auth is taken on reads and template writes only; send a writer's token as Authorization: Bearer <token>",
                field: "auth")
        }
        let principal: Principal
        do throws(AccessRefusal) {
            principal = try resolve(request, write: write, queryCredential: queryCredential)
        } catch {
            failures.count(error)
            throw error.error
        }
        resolved(principal)
        // A browser never attaches a credential on its own: a forged write comes without one.
        if write && !principal.presentedCredential { try crossOrigin.checkOrigin(request) }
        do throws(AccessRefusal) {
            try authorize(principal, access, channel: channel)
        } catch {
            failures.count(error)
            throw error.error
        }
        if write, let limiter {
            let client = principal.rateKey ?? request.remoteAddress
            let wait = limiter.take(for: client)
            if wait > 0 {
                throw APIError(
                    status: 429, code: "rate_limited", message: "too many writes; slow down",
                    headers: [Header(name: "Retry-After", value: String(Int(wait.rounded(.up))))])
            }
        }
        return principal
    }

    /// A write through a webhook template, which may carry its credential as `?auth=`.
    static func isTemplateWrite(_ request: HTTPRequest) -> Bool {
        !request.query.isEmpty
            && WebhookHandlers.isTemplateWrite(method: request.method, path: request.path) {
                request.query.contains { $0.name == "template" }
            }
    }

    /// For `GET /auth`: refuses the request's credential (or anonymous) unless it may read
    /// `channel`, as a read of that channel through the API would be refused.
    func authorizeRead(_ request: HTTPRequest, channel: String) throws(APIError) {
        do throws(AccessRefusal) {
            let principal = try resolve(request, write: false)
            try authorize(principal, .read, channel: channel[...])
        } catch {
            failures.count(error)
            throw error.error
        }
    }

    /// The principal of the request's credential: `Authorization: Bearer`, else (reads, for
    /// EventSource, and template writes, for webhook senders: neither can set headers) `?auth=`,
    /// else anonymous. A credential that is presented and not valid is refused, never taken as
    /// anonymous.
    func resolve(_ request: HTTPRequest, write: Bool, queryCredential: Bool? = nil) throws(AccessRefusal) -> Principal {
        guard credentialsConfigured || tokens.hasTokens else { return anonymous }
        let presented: [UInt8]
        // Read in place from the header's bytes: splitting and lowercasing a String cost more than
        // the rest of the check.
        if let header = request.withHeader("Authorization", { $0.map { AccessGuard.bearerValue(of: $0) } }) {
            guard let value = header else { throw .invalid("the Authorization header must be Bearer <token>") }
            presented = value
        } else if queryCredential ?? !write, let query = request.query.first(where: { $0.name == "auth" }) {
            presented = query.value ?? []
        } else {
            return anonymous
        }
        return try principal(for: presented)
    }

    /// The credential of an `Authorization` header's value: `Bearer` (any case), blanks, then the
    /// credential, trimmed of blanks; nil for another scheme or no credential.
    static func bearerValue(of header: UnsafeRawBufferPointer) -> [UInt8]? {
        func isBlank(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 }
        var start = 0
        var end = header.count
        while start < end && isBlank(header[start]) { start += 1 }
        while end > start && isBlank(header[end - 1]) { end -= 1 }
        let scheme = Array("bearer".utf8)
        guard end - start > scheme.count else { return nil }
        for (offset, letter) in scheme.enumerated() where header[start + offset] | 0x20 != letter { return nil }
        var value = start + scheme.count
        guard isBlank(header[value]) else { return nil }
        while value < end && isBlank(header[value]) { value += 1 }
        guard value < end else { return nil }
        return Array(header[value..<end])
    }

    /// The principal a bearer value names, in the order configured tokens, created tokens, JWTs.
    func principal(for presented: [UInt8]) throws(AccessRefusal) -> Principal {
        // Both configured tokens are compared, matched or not: the time says nothing about which.
        let isWriteToken = writeToken.map { ConstantTime.equals(presented, $0) } ?? false
        let isReadToken = readToken.map { ConstantTime.equals(presented, $0) } ?? false
        if isWriteToken { return writeTokenPrincipal }
        if isReadToken { return readTokenPrincipal }
        let now = wallSeconds()
        if TokenRegistry.isSecretShaped(presented) {
            switch tokens.lookUp(secret: presented, now: now) {
            case .found(let principal): return principal
            case .unknown: throw .invalid("the token is not valid")
            case .revoked: throw .revoked
            case .expired: throw .expired
            }
        }
        if let signed, SignedTokens.isShaped(presented) {
            return try signed.principal(String(decoding: presented, as: UTF8.self), now: now)
        }
        throw .invalid("the token is not valid")
    }

    /// Whether `principal` has `access`, on `channel` where the route is a channel's.
    func authorize(_ principal: Principal, _ access: Route.Access, channel: Substring) throws(AccessRefusal) {
        // The refusal's words are made only for a refusal: building them cost every allowed read
        // 2,100 instructions.
        let allowed: Bool
        switch access {
        case .open, .anyone, .subrequest:
            return
        case .read: allowed = principal.access(to: channel).contains(.read)
        case .write: allowed = principal.access(to: channel).contains(.write)
        case .readEverything: allowed = principal.grants.coversEverything(.read)
        case .writeEverything: allowed = principal.grants.coversEverything(.write)
        case .readSome:
            allowed =
                principal.presentedCredential || principal.grants.list.contains { $0.access.access.contains(.read) }
        case .admin: allowed = principal.admin
        }
        guard !allowed else { return }
        guard principal.presentedCredential else { throw .missing }
        let missing =
            switch access {
            case .read: "no read access to channel \(channel)"
            case .write: "no write access to channel \(channel)"
            case .readEverything: "this needs read access to every channel"
            case .writeEverything: "this needs write access to every channel"
            case .readSome: "no read access to any channel"
            default: "this needs an admin token"
            }
        throw .forbidden(missing)
    }
}

/// A token bucket per client address: `burst` writes at once, then `rate` per second.
final class RateLimiter: Sendable {
    private struct Bucket {
        var tokens: Double
        var updated: Int64

        /// Refills for the time since the last write, then takes a token: 0, or the seconds
        /// until one is there.
        mutating func take(now: Int64, rate: Double, burst: Double) -> Double {
            tokens = min(burst, tokens + Double(now - updated) / 1e9 * rate)
            updated = now
            guard tokens >= 1 else { return (1 - tokens) / rate }
            tokens -= 1
            return 0
        }
    }

    private let rate: Double
    private let burst: Double
    private let buckets = Lock([String: Bucket]())
    /// Beyond this many clients, full (idle) buckets are forgotten.
    private static let pruneAbove = 10_000

    init(rate: Double, burst: Double) {
        self.rate = rate
        self.burst = burst
    }

    /// Takes one token for `client`: 0 when allowed, else the seconds until a token is there.
    func take(for client: String, now: Int64 = MonotonicClock.nanoseconds()) -> Double {
        buckets.withLock { buckets in
            // Changed in place: one lookup (one hash of the key) per write, not two.
            let wait = buckets[client, default: Bucket(tokens: burst, updated: now)].take(
                now: now, rate: rate, burst: burst)
            if buckets.count > RateLimiter.pruneAbove { prune(&buckets, now: now) }
            return wait
        }
    }

    private func prune(_ buckets: inout [String: Bucket], now: Int64) {
        buckets = buckets.filter { _, bucket in
            bucket.tokens + Double(now - bucket.updated) / 1e9 * rate < burst
        }
    }
}
