import MicroHTTP
import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// The decisions of `CrossOriginPolicy`, without sockets: which `Host` and `Origin` a request may
/// name, which CORS headers answers carry, and how `cors` and `allowedHosts` are configured.
@Suite("Cross-origin policy")
struct CrossOriginPolicyTests {
    static func policy(_ configure: (inout ServiceConfiguration) -> Void = { _ in }) -> CrossOriginPolicy {
        var configuration = ServiceConfiguration()
        configure(&configuration)
        return CrossOriginPolicy(configuration: configuration)
    }

    static let writes = ["POST", "PUT", "PATCH", "DELETE"]

    /// Listening on loopback, every name of this machine passes, with or without a port.
    @Test(arguments: [
        "127.0.0.1:8080", "127.0.0.1", "127.5.6.7:80", "localhost", "localhost:8080", "LocalHost:1",
        "app.localhost:3000", "localhost.", "[::1]:8080", "[::1]", " 127.0.0.1:8080 ",
    ])
    func loopbackHosts(host: String) {
        let policy = Self.policy()
        #expect(policy.refusal(write: false, origin: nil, host: host) == nil)
        #expect(policy.refusal(write: true, origin: nil, host: host) == nil)
    }

    /// Any other name is refused, for reads as for writes: a rebound name reaches the server as
    /// the page's own origin, so the Origin rule alone would let it write.
    @Test(arguments: [
        "evil.test:8080", "evil.test", "x", "127.0.0.1.nip.io", "localhost.evil.test", "[::2]:80", "0.0.0.0:8080",
        "10.0.0.1", "192.168.1.20:8080", "", "127.0.0.1:port", "127.0.0.1:9999999", "[::1", "::1", "127.1",
    ])
    func foreignHosts(host: String) {
        let policy = Self.policy()
        for method in ["GET", "OPTIONS"] + Self.writes {
            #expect(
                policy.refusal(write: Self.writes.contains(method), origin: nil, host: host) == .foreignHost(host),
                "\(method)")
        }
    }

    /// The byte-level shortcut for the common loopback forms takes exactly those, and never a
    /// value the general reading refuses.
    @Test func plainLoopbackShortcut() {
        for host in ["127.0.0.1", "127.0.0.1:8080", "127.0.0.1:1", "localhost", "localhost:65535", "[::1]", "[::1]:80"]
        {
            #expect(CrossOriginPolicy.isPlainLoopback(host), "\(host)")
            #expect(CrossOriginPolicy.hostName(host).map(CrossOriginPolicy.isLoopback(name:)) == true, "\(host)")
        }
        for host in [
            "127.0.0.1:", "127.0.0.1:123456", ":8080", "localhost.evil.test", "x127.0.0.1", "127.0.0.1x:80",
            "[::1]x", "::1", "", "LocalHost", " localhost", "127.0.0.1:80:80", "evil.test:8080",
        ] {
            #expect(!CrossOriginPolicy.isPlainLoopback(host), "\(host)")
        }
    }

    /// No Host at all (HTTP/1.0) comes from no browser, and passes.
    @Test func noHost() {
        #expect(Self.policy().refusal(write: true, origin: nil, host: nil) == nil)
    }

    /// Listening on every address (Docker), the Host rule is off; the Origin rule is not.
    @Test func notOnLoopback() {
        for address in ["0.0.0.0", "::", "192.168.1.20"] {
            let policy = Self.policy { $0.host = address }
            #expect(!policy.checksHost)
            #expect(policy.refusal(write: false, origin: nil, host: "evil.test") == nil)
            #expect(
                policy.refusal(write: true, origin: "http://evil.test", host: "evil.test:8080")
                    == .foreignOrigin("http://evil.test"))
        }
        for address in ["127.0.0.1", "127.0.0.2", "localhost", "::1", "[::1]", "::ffff:127.0.0.1"] {
            #expect(CrossOriginPolicy.isLoopback(address: address), "\(address)")
        }
    }

    /// `allowedHosts` adds names; a leading dot adds the name and every name under it.
    @Test func allowedHosts() {
        let policy = Self.policy { $0.allowedHosts = [".lan", "overlay.example"] }
        for host in ["pi.lan:8080", "lan", "a.b.lan", "overlay.example:80", "OVERLAY.EXAMPLE"] {
            #expect(policy.refusal(write: false, origin: nil, host: host) == nil, "\(host)")
        }
        for host in ["evillan", "lan.evil", "x.overlay.example", "overlay.example.evil"] {
            #expect(policy.refusal(write: false, origin: nil, host: host) == .foreignHost(host), "\(host)")
        }
    }

    /// Without a token, a write from another origin is refused; one without Origin (curl) or
    /// from the server's own pages (the preview) is not, and reads never are.
    @Test func forgedWrites() {
        let policy = Self.policy()
        let host = "127.0.0.1:8080"
        for method in Self.writes {
            #expect(policy.refusal(write: Self.writes.contains(method), origin: nil, host: host) == nil)
            #expect(
                policy.refusal(write: Self.writes.contains(method), origin: "http://127.0.0.1:8080", host: host) == nil)
            #expect(
                policy.refusal(write: Self.writes.contains(method), origin: "HTTP://127.0.0.1:8080", host: host) == nil)
            for origin in [
                "http://127.0.0.1:9000", "http://localhost:8080", "https://evil.test", "null", "", "http://127.0.0.1",
                "http://127.0.0.1:8080/", "file://",
            ] {
                #expect(
                    policy.refusal(write: Self.writes.contains(method), origin: origin, host: host)
                        == .foreignOrigin(origin), "\(origin)")
            }
        }
        for method in ["GET", "HEAD", "OPTIONS"] {
            #expect(policy.refusal(write: Self.writes.contains(method), origin: "https://evil.test", host: host) == nil)
        }
        // A browser leaves the default port out of Origin, not out of Host.
        #expect(policy.refusal(write: true, origin: "http://localhost", host: "localhost:80") == nil)
        #expect(policy.refusal(write: true, origin: "https://localhost", host: "localhost:443") == nil)
        #expect(policy.mayWrite(origin: "http://localhost", host: "localhost:443") == false)
        #expect(policy.mayWrite(origin: "http://127.0.0.1:8080", host: nil) == false)
    }

    /// A configured token does not turn the origin rule off: the guard skips it only for a write
    /// that carries a valid credential, which a forged write never does.
    @Test func tokenLeavesTheOriginRuleOn() {
        let policy = Self.policy { $0.token = "a-write-token" }
        #expect(
            policy.refusal(write: true, origin: "https://evil.test", host: "127.0.0.1:8080")
                == .foreignOrigin("https://evil.test"))
        #expect(policy.refusal(write: true, origin: nil, host: "evil.test") == .foreignHost("evil.test"))
    }

    /// Origins listed by name may write without a token; `*` lets pages read, never write.
    @Test func listedOrigins() {
        let policy = Self.policy { $0.corsAllowOrigins = ["*", "https://dash.example"] }
        let host = "127.0.0.1:8080"
        #expect(policy.refusal(write: true, origin: "https://dash.example", host: host) == nil)
        #expect(policy.refusal(write: true, origin: "HTTPS://Dash.Example", host: host) == nil)
        #expect(
            policy.refusal(write: true, origin: "https://dash.example:8443", host: host)
                == .foreignOrigin("https://dash.example:8443"))
        #expect(
            Self.policy().refusal(write: true, origin: "https://dash.example", host: host)
                == .foreignOrigin("https://dash.example"))
    }

    /// `*`: the same two headers on every answer, whatever the request; nothing per origin.
    @Test func anyOriginHeaders() {
        let policy = Self.policy()
        #expect(
            policy.responseHeaders == [
                Header(name: "Access-Control-Allow-Origin", value: "*"),
                Header(name: "Access-Control-Expose-Headers", value: "ETag, Location, Retry-After"),
            ])
        #expect(policy.originHeaders == nil)
        #expect(
            policy.preflightHeaders(allowing: ["GET", "POST", "HEAD", "OPTIONS"]) == [
                Header(name: "Access-Control-Allow-Methods", value: "GET, POST, HEAD, OPTIONS"),
                Header(
                    name: "Access-Control-Allow-Headers",
                    value: "Authorization, Content-Type, If-None-Match, Last-Event-ID"),
                Header(name: "Access-Control-Max-Age", value: "600"),
            ])
    }

    /// A list of names: `Vary: Origin` everywhere, and a listed origin echoed as it was sent.
    @Test func listedOriginHeaders() throws {
        let policy = Self.policy { $0.corsAllowOrigins = ["https://dash.example", "http://localhost:3000"] }
        #expect(policy.responseHeaders == [Header(name: "Vary", value: "Origin")])
        let headers = try #require(policy.originHeaders)
        #expect(
            headers("https://dash.example") == [
                Header(name: "Access-Control-Allow-Origin", value: "https://dash.example"),
                Header(name: "Access-Control-Expose-Headers", value: "ETag, Location, Retry-After"),
            ])
        #expect(headers("http://localhost:3000").first?.value == "http://localhost:3000")
        #expect(headers("https://evil.test") == [])
        #expect(headers("https://dash.example.evil.test") == [])
        #expect(headers("null") == [])
        #expect(!policy.preflightHeaders(allowing: ["GET"]).isEmpty)
    }

    /// An empty list: no CORS header anywhere, preflights included.
    @Test func noOrigins() {
        let policy = Self.policy { $0.corsAllowOrigins = [] }
        #expect(!policy.isEnabled)
        #expect(policy.responseHeaders == [])
        #expect(policy.originHeaders == nil)
        #expect(policy.preflightHeaders(allowing: ["GET"]) == [])
        // Still no forged writes.
        #expect(
            policy.refusal(write: true, origin: "https://evil.test", host: "127.0.0.1:1")
                == .foreignOrigin("https://evil.test"))
    }

    /// The refusals are 403 with their own codes, and quote a long header only in part.
    @Test func refusalAnswers() {
        let host = CrossOriginPolicy.Refusal.foreignHost("evil.test:8080").error
        #expect(host.status == 403 && host.code == "host_not_allowed" && host.message.contains("evil.test:8080"))
        let long = String(repeating: "a", count: 5000)
        let origin = CrossOriginPolicy.Refusal.foreignOrigin(long).error
        #expect(origin.status == 403 && origin.code == "origin_not_allowed")
        #expect(origin.message.count < 300)
    }

    /// `cors.allowOrigins` and `allowedHosts` from the file: normalised, and every bad value named.
    @Test func configuration() throws {
        let loaded = try ServiceConfiguration.loaded(
            file:
                #"{"cors": {"allowOrigins": ["HTTPS://Dash.Example:8443", "*", "*"]}, "allowedHosts": ["Pi.LAN", ".lan", "[::1]"]}"#
        )
        #expect(loaded.corsAllowOrigins == ["https://dash.example:8443", "*"])
        #expect(loaded.allowedHosts == ["pi.lan", ".lan", "::1"])
        let none = try ServiceConfiguration.loaded(file: #"{"cors": {"allowOrigins": []}}"#)
        #expect(none.corsAllowOrigins == [])
        let cases: [(String, String)] = [
            (#"{"cors": {"allowOrigins": "*"}}"#, "cors.allowOrigins"),
            (#"{"cors": {"allowOrigins": [1]}}"#, "cors.allowOrigins[0]"),
            (#"{"cors": {"allowOrigins": ["*", "null"]}}"#, "cors.allowOrigins[1]"),
            (#"{"cors": {"allowOrigins": ["https://a.example/path"]}}"#, "cors.allowOrigins[0]"),
            (#"{"cors": {"allowOrigins": ["a.example"]}}"#, "cors.allowOrigins[0]"),
            (#"{"cors": {"allowOrigins": ["https://"]}}"#, "cors.allowOrigins[0]"),
            (#"{"cors": {"allowOrigins": ["https://a b"]}}"#, "cors.allowOrigins[0]"),
            (#"{"cors": {"allowOrigins": ["https://a.example:port"]}}"#, "cors.allowOrigins[0]"),
            (#"{"cors": {"allowOrigin": ["*"]}}"#, "cors.allowOrigin"),
            (#"{"cors": ["*"]}"#, "cors"),
            (#"{"allowedHosts": "lan"}"#, "allowedHosts"),
            (#"{"allowedHosts": ["pi.lan:8080"]}"#, "allowedHosts[0]"),
            (#"{"allowedHosts": ["http://pi.lan"]}"#, "allowedHosts[0]"),
            (#"{"allowedHosts": ["", "x"]}"#, "allowedHosts[0]"),
            (#"{"allowedHosts": ["a b"]}"#, "allowedHosts[0]"),
        ]
        for (json, key) in cases {
            let error = ConfigurationError.loading(file: json)
            #expect(error?.key == key, "\(json): \(String(describing: error))")
        }
    }
}
