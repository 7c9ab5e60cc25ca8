import ServiceTestSupport
import Synchronization
import TestSupport
import Testing

@testable import OverlayService

#if canImport(Glibc)
    import Glibc
#endif

/// MODEL §7: writes need `Authorization: Bearer <token>` when a token is configured; reads stay
/// open unless a read token is configured; `/healthz` and OPTIONS stay open; tokens are never
/// logged.
@Suite("Tokens")
struct TokenTests {
    /// Every kind of write: none without the token, none with a wrong one, each with the right one.
    @Test func writesNeedTheToken() throws {
        try withLiveServer(started: LiveServer.tokenGuarded()) { live in
            let json = [("Content-Type", "application/json")]
            let writes: [(method: String, path: String, body: String)] = [
                ("POST", "/messages", #"{"text": "hello"}"#),
                ("PATCH", "/messages/1", #"{"text": "changed"}"#),
                ("PUT", "/orientation", #"{"orientation": "landscapeLeft"}"#),
                ("PUT", "/device", #"{"device": "iphone"}"#),
                ("POST", "/clock", #"{"advance": 1}"#),
                ("POST", "/channels/ops/messages", #"{"text": "ops"}"#),
                ("DELETE", "/messages/1", ""),
            ]
            let wrong: [(header: String, isWrongToken: Bool)] = [
                ("Bearer nope", true),
                ("Bearer \(Credential.write)x", true),
                ("Bearer \(Credential.write.dropLast())", true),
                ("Bearer \(Credential.write.uppercased())", true),
                ("Basic \(Credential.write)", true),
                (Credential.write, true),
                ("Bearer", true),
                ("Bearer ", true),
            ]
            for write in writes {
                let missing = try live.request(write.method, write.path, headers: json, body: write.body)
                expectUnauthorized(missing, wrongToken: false)
                for (header, isWrongToken) in wrong {
                    let refused = try live.request(
                        write.method, write.path, headers: json + [("Authorization", header)], body: write.body)
                    expectUnauthorized(refused, wrongToken: isWrongToken)
                }
                // The token is not taken from the query string for a write: 400 naming auth.
                let query = try live.request(
                    write.method, write.path + "?auth=\(Credential.write)", headers: json, body: write.body)
                expectError(query, status: 400, code: "bad_request", field: "auth")
                let allowed = try live.request(
                    write.method, write.path, headers: json + Credential.authorization(Credential.write),
                    body: write.body
                )
                #expect(
                    [200, 202].contains(allowed.status),
                    "\(write.method) \(write.path): \(allowed.status) \(allowed.text)")
            }
            // The scheme is case-insensitive (RFC 9110 §11.1); surrounding spaces do not matter.
            let lower = try live.request(
                "POST", "/messages", headers: [("Authorization", "bearer   \(Credential.write) ")], body: "lower")
            #expect(lower.status == 202)
        }
    }

    /// A refused write changes nothing: same version, same queue.
    @Test func refusedWriteChangesNothing() throws {
        try withLiveServer(started: LiveServer.tokenGuarded()) { live in
            let token = Credential.authorization(Credential.write)
            #expect(
                try live.request("POST", "/messages", headers: token, body: #"{"text": "a", "kind": "sending"}"#).status
                    == 202)
            #expect(try live.request("POST", "/messages", headers: token, body: "b").status == 202)
            #expect(try live.request("POST", "/clock", headers: token, body: "1").status == 200)
            let before = try live.observableState()
            let attempts: [(String, String, String)] = [
                ("POST", "/messages", #"{"text": "intruder", "immediate": true}"#),
                ("PATCH", "/messages/1", #"{"text": "defaced"}"#),
                ("DELETE", "/messages/2", ""),
                ("PUT", "/orientation", "landscapeLeft"),
                ("POST", "/clock", #"{"advance": 10}"#),
            ]
            for (method, path, body) in attempts {
                for headers in [[], Credential.authorization("guess")] {
                    #expect(try live.request(method, path, headers: headers, body: body).status == 401)
                }
            }
            try live.expectUnchanged(since: before)
        }
    }

    /// Without a read token every read is open, also with a write token configured.
    @Test func readsOpenWithoutReadToken() throws {
        try withLiveServer(started: LiveServer.tokenGuarded()) { live throws in
            for path in ["/", "/overlay", "/messages", "/channels", "/metrics", "/clock", "/healthz", "/openapi.yaml"] {
                #expect(try live.get(path).status == 200, "\(path)")
            }
            #expect(try live.request("HEAD", "/overlay").status == 200)
        }
    }

    /// With a read token, a read needs the read token or the write token, in the header or in
    /// `?auth=` (for EventSource, which cannot set headers).
    @Test func readTokenGuardsReads() throws {
        try withLiveServer(started: LiveServer.tokenGuarded(reads: true)) { live in
            for path in ["/overlay", "/messages", "/channels", "/metrics", "/messages/1", "/events"] {
                expectUnauthorized(try live.get(path), wrongToken: false)
                expectUnauthorized(
                    try live.request("GET", path, headers: Credential.authorization("wrong")), wrongToken: true)
                expectUnauthorized(try live.get(path + "?auth=wrong"), wrongToken: true)
            }
            let head = try live.request("HEAD", "/overlay")
            #expect(head.status == 401)
            #expect(head.header("WWW-Authenticate") == #"Bearer realm="overlayd""#)
            for token in [Credential.read, Credential.write] {
                #expect(try live.request("GET", "/overlay", headers: Credential.authorization(token)).status == 200)
                #expect(try live.get("/overlay?auth=\(token)").status == 200)
                #expect(try live.get("/messages?auth=\(token)").status == 200)
            }
            // The read token does not allow writes: 403 in the header, 400 naming auth in the query.
            let forbidden = try live.request(
                "POST", "/messages", headers: Credential.authorization(Credential.read), body: "no")
            expectError(forbidden, status: 403, code: "forbidden")
            #expect(forbidden.header("WWW-Authenticate") == #"Bearer realm="overlayd", error="insufficient_scope""#)
            expectError(
                try live.request("POST", "/messages?auth=\(Credential.read)", body: "no"), status: 400,
                code: "bad_request", field: "auth")
            // Liveness and CORS preflights stay open.
            #expect(try live.get("/healthz").status == 200)
            #expect(try live.request("OPTIONS", "/overlay").status == 204)
            #expect(try live.request("OPTIONS", "/messages").status == 204)
        }
    }

    /// The tokens never reach the log: not from the header, not from `?auth=`, not from a refusal,
    /// not in the start-up line. The real executable, with its access log on.
    @Test func tokensNeverLogged() throws {
        let child = try ChildProcess.overlayd(
            ["--port", "0", "--clock", "manual", "--ephemeral", "--access-log=true"],
            environment: ["OVERLAYD_TOKEN": Credential.write, "OVERLAYD_READ_TOKEN": Credential.read])
        let port = try #require(child.listeningPort())
        let write = Credential.authorization(Credential.write)
        let requests: [(String, String, [(String, String)], String?, Int)] = [
            ("POST", "/messages", write, "logged?", 202),
            ("GET", "/overlay", Credential.authorization(Credential.read), nil, 200),
            ("GET", "/overlay?auth=\(Credential.read)", [], nil, 200),
            ("GET", "/messages?auth=\(Credential.write)&x=1", [], nil, 200),
            ("POST", "/messages?auth=\(Credential.write)", [], "refused", 400),
            ("GET", "/overlay?auth=\(Credential.read)x", [], nil, 401),
            ("GET", "/nowhere?auth=\(Credential.read)", [], nil, 404),
        ]
        for (method, path, headers, body, status) in requests {
            let response = try RawClient.request(method, path, port: port, headers: headers, body: body)
            #expect(response.status == status, "\(method) \(path)")
        }
        kill(child.pid, SIGTERM)
        #expect(child.exitStatus() == 0)
        let log = child.errorText + child.outputText
        let lines = log.split(separator: "\n").filter { $0.hasPrefix("access method=") }
        #expect(lines.count == requests.count, "\(log)")
        #expect(log.contains("status=401"))
        for token in [Credential.write, Credential.read] {
            #expect(!log.contains(token), "\(log)")
            #expect(!log.contains(String(token.prefix(10))), "\(log)")
        }
    }
}

/// `limits.writesPerSecond` / `limits.writeBurst`: a token bucket per client address for writes;
/// past it 429 with `Retry-After`, and nothing changes. Reads are never limited.
@Suite("Write rate limit")
struct RateLimitTests {
    /// Quick writes: the burst passes, then 429 with `Retry-After`, and nothing changes; reads are
    /// not limited. One token per 1,000 s, so that none comes back while the test runs however
    /// slow the machine: the refill itself is `bucketRefillsAtItsRate`'s, on a clock of its own.
    @Test func burstThenLimited() throws {
        try withLiveServer(
            started: LiveServer {
                $0.writesPerSecond = 0.001
                $0.writeBurst = 10
            }
        ) { live in
            var accepted = 0
            var limited: HTTPReply?
            while limited == nil && accepted < 100 {
                let response = try live.request("POST", "/messages", body: "quick \(accepted)")
                if response.status == 202 { accepted += 1 } else { limited = response }
            }
            let refused = try #require(limited)
            #expect(accepted == 10)
            expectError(refused, status: 429, code: "rate_limited")
            // The next token is up to 1,000 s away (less the time the burst took, whatever it was).
            let retryAfter = try #require(refused.header("Retry-After").flatMap { Int($0) })
            #expect((2...1000).contains(retryAfter))

            // A refused write changes nothing; reads are not limited at all.
            let before = try live.observableState()
            for _ in 0..<5 {
                #expect(try live.request("POST", "/messages", body: "over").status == 429)
                #expect(try live.request("DELETE", "/messages/1").status == 429)
            }
            for _ in 0..<60 {
                #expect(try live.get("/overlay").status == 200)
            }
            try live.expectUnchanged(since: before)
        }
    }

    /// The bucket on a clock the test moves: `burst` writes at once, then one per 1/`rate` s,
    /// each refusal naming the time until the next token; refusals take nothing.
    @Test func bucketRefillsAtItsRate() {
        let limiter = RateLimiter(rate: 5, burst: 10)
        let second: Int64 = 1_000_000_000
        let start: Int64 = 1_000 * second
        for _ in 0..<10 { #expect(limiter.take(for: "a", now: start) == 0) }
        #expect(abs(limiter.take(for: "a", now: start) - 0.2) < 1e-9)
        #expect(abs(limiter.take(for: "a", now: start + second / 10) - 0.1) < 1e-9)
        #expect(limiter.take(for: "a", now: start + second / 5) == 0)
        #expect(abs(limiter.take(for: "a", now: start + second / 5) - 0.2) < 1e-9)
        // A second later: five more, not ten (the burst refills at the rate).
        for _ in 0..<5 { #expect(limiter.take(for: "a", now: start + 6 * second / 5) == 0) }
        #expect(limiter.take(for: "a", now: start + 6 * second / 5) > 0)
        // Another client has its own bucket; a long pause refills to the burst and no further.
        #expect(limiter.take(for: "b", now: start) == 0)
        for _ in 0..<10 { #expect(limiter.take(for: "a", now: start + 100 * second) == 0) }
        #expect(limiter.take(for: "a", now: start + 100 * second) > 0)
    }

    /// The bucket is per client address: another client (127.0.0.2) still has its whole burst.
    @Test func perClient() throws {
        try withLiveServer(
            started: LiveServer {
                $0.writesPerSecond = 0.01
                $0.writeBurst = 3
            }
        ) { live in
            for index in 0..<3 {
                #expect(try live.request("POST", "/messages", body: "one \(index)").status == 202)
            }
            #expect(try live.request("POST", "/messages", body: "one more").status == 429)
            for index in 0..<3 {
                let other = try RawClient.request(
                    "POST", "/messages", port: live.port, body: "\(index)", from: "127.0.0.2")
                #expect(other.status == 202)
            }
            #expect(
                try RawClient.request("POST", "/messages", port: live.port, body: "x", from: "127.0.0.2").status == 429)
        }
    }

    /// Refused tokens do not use up the bucket: a flood of wrong tokens does not lock the real
    /// sender out.
    @Test func wrongTokensDoNotDrainTheBucket() throws {
        try withLiveServer(
            started: LiveServer {
                $0.token = Credential.write
                $0.writesPerSecond = 0.01
                $0.writeBurst = 2
            }
        ) { live throws in
            for _ in 0..<20 {
                #expect(
                    try live.request("POST", "/messages", headers: Credential.authorization("guess"), body: "x").status
                        == 401)
            }
            let right = Credential.authorization(Credential.write)
            #expect(try live.request("POST", "/messages", headers: right, body: "real").status == 202)
            #expect(try live.request("POST", "/messages", headers: right, body: "real").status == 202)
            #expect(try live.request("POST", "/messages", headers: right, body: "real").status == 429)
        }
    }
}
