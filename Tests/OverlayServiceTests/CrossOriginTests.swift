import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// CORS headers, forged writes and DNS rebinding through real HTTP: raw requests that name the
/// `Origin` and `Host` a browser would send, against a live server on a free port.
@Suite("Cross-origin requests")
struct CrossOriginTests {
    static let allowAny = "Access-Control-Allow-Origin"

    /// A raw request naming its own Host (RawClient.request always names 127.0.0.1:port).
    static func raw(
        _ live: LiveServer, _ method: String, _ path: String, host: String, headers: [(String, String)] = [],
        body: String = ""
    ) throws -> HTTPReply {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: \(host)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "Content-Length: \(body.utf8.count)\r\n\r\n"
        return try HTTPReply.parse(RawClient.exchange(port: live.port, send: Array((head + body).utf8)))
    }

    /// `*` (the default): every answer carries the two headers, the server's own refusals and the
    /// prepared 304 included, with an Origin or without.
    @Test func everyAnswerCarriesTheDefault() throws {
        try withLiveServer { live in
            let origin = [("Origin", "https://dashboard.example")]
            #expect(try live.post("/messages", json: #"{"text": "hello"}"#).status == 202)
            let version = try #require(try live.overlay()["version"]?.int)
            var answers: [(String, HTTPReply)] = [
                ("200", try live.request("GET", "/overlay", headers: origin)),
                ("304", try live.request("GET", "/overlay", headers: [("If-None-Match", "W/\"\(version)\"")])),
                (
                    "304 again",
                    try live.request("GET", "/overlay", headers: origin + [("If-None-Match", "W/\"\(version)\"")])
                ),
                ("404", try live.get("/nowhere")),
                ("405", try live.request("DELETE", "/overlay")),
                ("422", try live.post("/messages", json: #"{"text": ""}"#)),
                ("preview", try live.get("/preview")),
            ]
            let big = String(repeating: "x", count: 17 * 1024)
            answers.append(
                ("413", try live.request("POST", "/messages", headers: [("Content-Type", "text/plain")], body: big)))
            let events = try StreamClient(port: live.port, path: "/events")
            try events.readHead()
            for (name, response) in answers {
                #expect(response.header(Self.allowAny) == "*", "\(name): \(response.headers)")
                #expect(response.header("Access-Control-Expose-Headers") == "ETag, Location, Retry-After", "\(name)")
            }
            #expect(answers[1].1.status == 304 && answers[2].1.status == 304)
            #expect(answers.last?.1.status == 413)
            #expect(events.status == 200 && events.header(Self.allowAny) == "*")
        }
    }

    /// OPTIONS answers a preflight with the path's methods and the headers a page may send.
    @Test func preflight() throws {
        try withLiveServer { live in
            let response = try live.request(
                "OPTIONS", "/messages/1",
                headers: [
                    ("Origin", "https://dashboard.example"), ("Access-Control-Request-Method", "PATCH"),
                    ("Access-Control-Request-Headers", "authorization, content-type"),
                ])
            #expect(response.status == 204)
            #expect(response.header("Access-Control-Allow-Methods") == "GET, PATCH, DELETE, HEAD, OPTIONS")
            #expect(
                response.header("Access-Control-Allow-Headers")
                    == "Authorization, Content-Type, If-None-Match, Last-Event-ID")
            #expect(response.header("Access-Control-Max-Age") == "600")
            #expect(response.header(Self.allowAny) == "*")
            // Preflights need no token.
            try withLiveServer(configure: { $0.token = "write-token" }) { guarded throws in
                #expect(
                    try guarded.request("OPTIONS", "/messages", headers: [("Origin", "https://a.example")]).status
                        == 204)
            }
        }
    }

    /// A list of names: a listed origin is echoed (also on a 304, which is then built afresh rather
    /// than shared), any other gets no Allow-Origin, and every answer says `Vary: Origin`.
    @Test func listedOrigins() throws {
        try withLiveServer(configure: { $0.corsAllowOrigins = ["https://dash.example", "http://localhost:3000"] }) {
            live in
            #expect(try live.post("/messages", json: #"{"text": "hello"}"#).status == 202)
            let tag = "W/\"\(try #require(try live.overlay()["version"]?.int))\""
            for conditional in [false, true] {
                let extra = conditional ? [("If-None-Match", tag)] : []
                let listed = try live.request("GET", "/overlay", headers: extra + [("Origin", "https://dash.example")])
                #expect(listed.status == (conditional ? 304 : 200))
                #expect(listed.header(Self.allowAny) == "https://dash.example")
                #expect(listed.header("Access-Control-Expose-Headers") == "ETag, Location, Retry-After")
                #expect(listed.header("Vary") == "Origin")
                let other = try live.request("GET", "/overlay", headers: extra + [("Origin", "https://evil.test")])
                #expect(other.header(Self.allowAny) == nil && other.header("Vary") == "Origin")
                let none = try live.request("GET", "/overlay", headers: extra)
                #expect(none.header(Self.allowAny) == nil && none.header("Vary") == "Origin")
            }
            // The same 304 with and without an origin, in turn: the shared one never keeps an echo.
            let again = try live.request("GET", "/overlay", headers: [("If-None-Match", tag)])
            #expect(again.status == 304 && again.header(Self.allowAny) == nil)
            // Listed by name: may write without a token.
            let posted = try live.request(
                "POST", "/messages", headers: [("Origin", "http://localhost:3000"), ("Content-Type", "text/plain")],
                body: "from the dashboard")
            #expect(posted.status == 202 && posted.header(Self.allowAny) == "http://localhost:3000")
        }
    }

    /// An empty list: no CORS header on anything.
    @Test func noCORS() throws {
        try withLiveServer(configure: { $0.corsAllowOrigins = [] }) { live in
            for response in [
                try live.request("GET", "/overlay", headers: [("Origin", "https://a.example")]),
                try live.request("OPTIONS", "/messages", headers: [("Origin", "https://a.example")]),
                try live.get("/nowhere"),
            ] {
                #expect(
                    !response.headers.contains { $0.name.lowercased().hasPrefix("access-control-") },
                    "\(response.headers)")
                #expect(response.header("Vary") == nil)
            }
        }
    }

    /// Without a token, every kind of write a page can send from another origin is refused 403
    /// and changes nothing: text and form POSTs (no preflight), JSON, and the other write paths.
    @Test func forgedWritesChangeNothing() throws {
        try withLiveServer(started: LiveServer.startedWithTwoMessages()) { live in
            let before = try live.observableState()
            let evil = ("Origin", "https://evil.test")
            let attempts: [(String, String, [(String, String)], String)] = [
                (
                    "POST", "/messages", [evil, ("Content-Type", "text/plain")],
                    #"{"text": "forged", "kind": "failed"}"#
                ),
                ("POST", "/messages", [evil, FormBody.urlEncoded], "text=forged"),
                ("POST", "/messages", [evil, ("Content-Type", "multipart/form-data; boundary=b")], ""),
                ("POST", "/messages?text=forged", [evil], ""),
                ("POST", "/messages", [evil, ("Content-Type", "application/json")], #"{"text": "forged"}"#),
                ("POST", "/channels/other/messages", [("Origin", "null"), ("Content-Type", "text/plain")], "forged"),
                ("PATCH", "/messages/1", [evil, ("Content-Type", "text/plain")], "forged"),
                ("DELETE", "/messages/1", [evil], ""),
                ("PUT", "/orientation", [evil, ("Content-Type", "text/plain")], "landscapeLeft"),
                ("PUT", "/device", [evil, ("Content-Type", "text/plain")], "iphone"),
                ("POST", "/clock", [("Origin", "http://127.0.0.1:1"), ("Content-Type", "text/plain")], "5"),
            ]
            for (method, path, headers, body) in attempts {
                let response = try live.request(method, path, headers: headers, body: body)
                expectError(response, status: 403, code: "origin_not_allowed")
                #expect(response.header(Self.allowAny) == "*", "the refusal is readable: \(method) \(path)")
            }
            try live.expectUnchanged(since: before)
            #expect(try live.get("/channels/other").status == 404)
            // Reads from another origin stay open.
            #expect(try live.request("GET", "/messages", headers: [evil]).status == 200)
        }
    }

    /// The server's own pages (the preview) write with its origin; curl sends none.
    @Test func ownOriginAndCurlWrite() throws {
        try withLiveServer { live in
            for origin in ["http://127.0.0.1:\(live.port)", nil] {
                let headers = [("Content-Type", "text/plain")] + (origin.map { [("Origin", $0)] } ?? [])
                #expect(try live.request("POST", "/messages", headers: headers, body: "ok").status == 202)
            }
            let viaName = try Self.raw(
                live, "POST", "/messages", host: "localhost:\(live.port)",
                headers: [("Origin", "http://localhost:\(live.port)"), ("Content-Type", "text/plain")], body: "ok")
            #expect(viaName.status == 202)
        }
    }

    /// With a token, a page of any origin that holds it may write; without a credential the write
    /// is a forged one: 403 `origin_not_allowed`, before any question of access.
    @Test func tokenLetsOtherOriginsWrite() throws {
        try withLiveServer(configure: { $0.token = "the-write-token" }) { live in
            let evil = ("Origin", "https://dashboard.example")
            let with = try live.request(
                "POST", "/messages",
                headers: [evil, ("Authorization", "Bearer the-write-token"), ("Content-Type", "text/plain")],
                body: "hello")
            #expect(with.status == 202 && with.header(Self.allowAny) == "*")
            let without = try live.request(
                "POST", "/messages", headers: [evil, ("Content-Type", "text/plain")], body: "x")
            expectError(without, status: 403, code: "origin_not_allowed")
        }
    }

    /// On loopback, a request for a name that is not this machine's is refused, read or write;
    /// a name in `allowedHosts` passes.
    @Test func dnsRebinding() throws {
        try withLiveServer(started: LiveServer.startedWithTwoMessages { $0.allowedHosts = ["overlay.lan"] }) { live in
            let before = try live.observableState()
            let rebound = "evil.test:\(live.port)"
            for (method, path, headers) in [
                ("GET", "/overlay", [(String, String)]()), ("GET", "/preview", []), ("GET", "/events", []),
                ("OPTIONS", "/messages", []),
                ("POST", "/messages", [("Origin", "http://\(rebound)"), ("Content-Type", "text/plain")]),
                ("POST", "/messages", [("Content-Type", "text/plain")]),
            ] {
                let response = try Self.raw(live, method, path, host: rebound, headers: headers, body: "rebound")
                expectError(response, status: 403, code: "host_not_allowed")
            }
            try live.expectUnchanged(since: before)
            for host in ["localhost:\(live.port)", "[::1]:\(live.port)", "overlay.lan:\(live.port)", "127.0.0.1"] {
                #expect(try Self.raw(live, "GET", "/overlay", host: host).status == 200, "\(host)")
            }
        }
    }

    /// Listening on every address, any Host passes (the Docker image); forged writes still do not.
    @Test func wildcardListenerSkipsTheHostCheck() throws {
        try withLiveServer(configure: { $0.host = "0.0.0.0" }) { live in
            #expect(try Self.raw(live, "GET", "/overlay", host: "overlay.example").status == 200)
            let forged = try Self.raw(
                live, "POST", "/messages", host: "overlay.example",
                headers: [("Origin", "https://evil.test"), ("Content-Type", "text/plain")], body: "x")
            expectError(forged, status: 403, code: "origin_not_allowed")
            let own = try Self.raw(
                live, "POST", "/messages", host: "overlay.example",
                headers: [("Origin", "http://overlay.example"), ("Content-Type", "text/plain")], body: "x")
            #expect(own.status == 202)
        }
    }
}
