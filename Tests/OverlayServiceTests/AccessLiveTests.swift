import ServiceTestSupport
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// Access control over real HTTP on loopback: a revoked or expired token ends the stream and the
/// long-poll it holds at that moment; tokens outlive a `kill -9`; the access log names the
/// principal and never a secret.
@Suite("Access control, live")
struct AccessLiveTests {
    static let admin = "live-admin-token-0123"
    static let asAdmin = [("Authorization", "Bearer \(admin)"), ("Content-Type", "application/json")]

    static func make(_ port: Int, _ body: String) throws -> (secret: String, id: String) {
        let made = try RawClient.request("POST", "/tokens", port: port, headers: asAdmin, body: body)
        guard made.status == 201, let secret = made.json["secret"]?.string, let id = made.json["id"]?.string else {
            throw TestSupportError("no token: \(made.status) \(made.text)")
        }
        return (secret, id)
    }

    static let reader = #"{"label": "reader", "grants": [{"channels": "*", "access": "read"}]}"#

    /// A stream held with a token that is revoked gets `event: error` with the `invalid_token`
    /// body, then the response ends; reconnecting is 401.
    @Test func revocationEndsAStream() throws {
        try withLiveServer(configure: { $0.token = Self.admin }) { live in
            let token = try Self.make(live.port, Self.reader)
            let stream = try StreamClient.events(
                port: live.port, headers: [("Authorization", "Bearer \(token.secret)")])
            #expect(stream.status == 200)
            #expect(stream.nextEvent()?.event == "overlay")
            #expect(
                try RawClient.request("DELETE", "/tokens/\(token.id)", port: live.port, headers: Self.asAdmin).status
                    == 204
            )
            let ended = stream.nextEvent()
            #expect(ended?.event == "error")
            #expect(ended?.data?.contains(#""code":"invalid_token""#) == true, "\(String(describing: ended))")
            // Then the response ends: its last chunk, nothing after the error.
            #expect(stream.nextBlock() == nil && stream.ended)
            let again = try RawClient.request(
                "GET", "/events", port: live.port, headers: [("Authorization", "Bearer \(token.secret)")])
            #expect(again.status == 401)
            // A stream held with another credential goes on.
            let other = try Self.make(live.port, Self.reader)
            let kept = try StreamClient.events(port: live.port, path: "/events?auth=\(other.secret)")
            #expect(kept.nextEvent()?.event == "overlay")
            #expect(try live.post("/messages", json: #"{"text": "still here"}"#).status == 401)
            #expect(
                try RawClient.request(
                    "POST", "/messages", port: live.port, headers: Self.asAdmin, body: #"{"text": "x"}"#
                )
                .status == 202)
            #expect(kept.nextEvent()?.event == "overlay")
        }
    }

    /// A long-poll held with a token that is revoked is answered 401 at once.
    @Test func revocationAnswersALongPoll() throws {
        try withLiveServer(configure: { $0.token = Self.admin }) { live in
            let token = try Self.make(live.port, Self.reader)
            let version = try #require(try live.version())
            let poll = try StreamClient(
                port: live.port, path: "/overlay?wait=60&since=\(version)",
                headers: [("Authorization", "Bearer \(token.secret)")])
            // Parked: the server holds it (one waiter) before the revocation, so the test proves the end.
            #expect(try live.waitForMetric("overlayd_long_poll_waiters", toBe: 1))
            #expect(
                try RawClient.request("DELETE", "/tokens/\(token.id)", port: live.port, headers: Self.asAdmin).status
                    == 204
            )
            let answer = try poll.response()
            #expect(answer.status == 401 && answer.json["error"]?["code"]?.string == "invalid_token")
        }
    }

    /// A stream held with a token that expires ends when it does (on the wall clock).
    @Test func expiryEndsAStream() throws {
        try withLiveServer(clock: .real, configure: { $0.token = Self.admin }) { live in
            let token = try Self.make(
                live.port, #"{"label": "brief", "grants": [{"channels": "*", "access": "read"}], "expires": 2}"#)
            let stream = try StreamClient.events(
                port: live.port, headers: [("Authorization", "Bearer \(token.secret)")])
            #expect(stream.nextEvent()?.event == "overlay")
            let ended = stream.events { $0.event == "error" }.last
            #expect(ended?.event == "error" && ended?.data?.contains("invalid_token") == true)
            // Then the response ends: its last chunk, nothing after the error.
            #expect(stream.nextBlock() == nil && stream.ended)
        }
    }

    /// Made tokens outlive `kill -9`, a revoked one stays revoked, and the access log names each
    /// request's principal, never a secret or a query string.
    @Test func killDashNineKeepsTokens() throws {
        let directory = try TemporaryDirectory()
        func start() throws -> (ChildProcess, Int) {
            let child = try ChildProcess.overlayd(
                ["--port", "0", "--data-dir", directory.path, "--access-log=true"],
                environment: ["OVERLAYD_TOKEN": Self.admin])
            guard let port = child.listeningPort() else { throw TestSupportError("no start: \(child.errorText)") }
            return (child, port)
        }
        let (first, port) = try start()
        let kept = try Self.make(port, Self.reader)
        let revoked = try Self.make(port, Self.reader)
        #expect(
            try RawClient.request("DELETE", "/tokens/\(revoked.id)", port: port, headers: Self.asAdmin).status == 204)
        kill(first.pid, SIGKILL)
        #expect(first.exitStatus() == -SIGKILL)
        let (second, again) = try start()
        #expect(
            try RawClient.request("GET", "/overlay", port: again, headers: [("Authorization", "Bearer \(kept.secret)")])
                .status == 200)
        #expect(try RawClient.request("GET", "/overlay?auth=\(revoked.secret)", port: again).status == 401)
        kill(second.pid, SIGTERM)
        #expect(second.exitStatus() == 0)
        let log = first.errorText + second.errorText
        #expect(log.contains("principal=\(kept.id)"), "\(log)")
        #expect(log.contains("principal=token"))
        #expect(log.contains("status=401") && log.contains("principal=-"))
        for secret in [kept.secret, revoked.secret, Self.admin] {
            #expect(!log.contains(secret))
            #expect(!log.contains(String(secret.dropFirst(4).prefix(12))))
        }
        #expect(!log.contains("auth="))
    }
}
