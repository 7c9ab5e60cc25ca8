import MicroHTTP
import Platform
import Synchronization

/// Who may do what: write and read tokens, and the per-client write rate.
final class AccessGuard: Sendable {
    private let writeToken: [UInt8]?
    private let readToken: [UInt8]?
    private let limiter: RateLimiter?
    /// Which web pages may read and write (CORS, forged writes, DNS rebinding).
    let crossOrigin: CrossOriginPolicy

    init(configuration: ServiceConfiguration) {
        crossOrigin = CrossOriginPolicy(configuration: configuration)
        writeToken = configuration.token.map { Array($0.utf8) }
        readToken = configuration.readToken.map { Array($0.utf8) }
        limiter =
            configuration.writesPerSecond > 0
            ? RateLimiter(rate: configuration.writesPerSecond, burst: Double(configuration.writeBurst)) : nil
    }

    /// The access a request for no route is checked with: what its method would need.
    static func impliedAccess(of method: String) -> Route.Access {
        switch method {
        case "POST", "PUT", "PATCH", "DELETE": .write
        case "OPTIONS": .open
        default: .read
        }
    }

    /// Refuses a request from a web page that may not make it (403), one without the token its
    /// route needs (401), or a write over the client's rate (429). Open routes (liveness, the
    /// preview page) and OPTIONS need no token, so that health checks, CORS preflights and the
    /// page work; the cross-origin checks apply to every request.
    func check(_ request: HTTPRequest, _ access: Route.Access) throws(APIError) {
        try crossOrigin.check(request, write: access == .write)
        if access == .open || request.method == "OPTIONS" { return }
        let write = access == .write
        if write, let writeToken {
            try require(request, anyOf: [writeToken], allowQuery: false)
        } else if !write, let readToken {
            try require(request, anyOf: [readToken] + (writeToken.map { [$0] } ?? []), allowQuery: true)
        }
        if write, let limiter {
            let wait = limiter.take(for: request.remoteAddress)
            if wait > 0 {
                throw APIError(
                    status: 429, code: "rate_limited",
                    message: "too many writes from \(request.remoteAddress); slow down",
                    headers: [Header(name: "Retry-After", value: String(Int(wait.rounded(.up))))])
            }
        }
    }

    /// `Authorization: Bearer <token>`, or (reads only, for EventSource, which cannot set headers)
    /// `?auth=<token>`. Compared in constant time.
    private func require(_ request: HTTPRequest, anyOf tokens: [[UInt8]], allowQuery: Bool) throws(APIError) {
        var presented: [UInt8]?
        if let header = request.header("Authorization") {
            let parts = header.split(separator: " ", maxSplits: 1, omittingEmptySubsequences: true)
            if parts.count == 2, parts[0].lowercased() == "bearer" {
                presented = Array(parts[1].trimmingSpaces().utf8)
            }
        } else if allowQuery, let query = request.query.first(where: { $0.name == "auth" }) {
            presented = query.value
        }
        guard let presented else {
            throw APIError(
                status: 401, code: "unauthorized", message: "this needs Authorization: Bearer <token>",
                headers: [Header(name: "WWW-Authenticate", value: "Bearer realm=\"overlayd\"")])
        }
        // Every token is compared, matched or not, so the time taken says nothing about which.
        var matched = false
        for token in tokens where AccessGuard.constantTimeEquals(presented, token) { matched = true }
        guard matched else {
            throw APIError(
                status: 401, code: "unauthorized", message: "the token is not valid",
                headers: [Header(name: "WWW-Authenticate", value: "Bearer realm=\"overlayd\", error=\"invalid_token\"")]
            )
        }
    }

    /// Equality whose time depends only on the lengths, not on where the bytes first differ.
    static func constantTimeEquals(_ a: [UInt8], _ b: [UInt8]) -> Bool {
        var difference = UInt8(truncatingIfNeeded: a.count ^ b.count)
        if a.count != b.count { difference |= 1 }
        for index in 0..<max(a.count, b.count) {
            difference |= (index < a.count ? a[index] : 0) ^ (index < b.count ? b[index] : 0)
        }
        return difference == 0
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
    private let buckets = Mutex([String: Bucket]())
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
