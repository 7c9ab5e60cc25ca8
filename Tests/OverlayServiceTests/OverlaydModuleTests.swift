import OverlayEngine
import ServiceTestSupport
import Testing

@testable import OverlayService

/// `GET /overlayd.js`: the module of `<overlayd-overlay>`, with the drawing settings written in,
/// served as a script another origin may import (CORS), with a strong ETag and 304. What it draws
/// is checked in Chromium by `scripts/browser-test`.
@Suite("Web component module")
struct OverlaydModuleTests {
    /// JavaScript, open, with the configured devices, cap width and text sizes in its settings.
    @Test func served() throws {
        try withLiveServer(configure: { $0.engine.progressBarCapWidth = 3 }) { live in
            let response = try live.get("/overlayd.js")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "text/javascript; charset=utf-8")
            #expect(response.header("X-Content-Type-Options") == "nosniff")
            #expect(response.header("Cache-Control") == "no-cache")
            #expect(response.text.hasPrefix("// <overlayd-overlay>"))
            #expect(response.text.contains(#"export const settings = {"capWidth":3,"devices":{"#))
            #expect(
                response.text.contains(
                    #""iphone-notch":{"width":375,"height":812,"statusBarHeight":44,"safeAreaTop":44,"cutout":"notch"}"#
                ))
            #expect(
                response.text.contains(
                    #""iphone-15-pro":{"width":393,"height":852,"statusBarHeight":54,"safeAreaTop":59,"cutout":"island","#
                        + #""island":{"width":126,"height":37.33,"y":11}}"#))
            #expect(response.text.contains(#"},"titleSize":13,"subtitleSize":12};"#))
            #expect(!response.text.contains(String(decoding: OverlaydModule.placeholder, as: UTF8.self)))
            // A strong tag (no W/ prefix) holding the module's 64-bit hash in decimal.
            let tag = try #require(response.header("ETag"))
            #expect(tag == "\"\(StaticAnswer.fnv1a(response.body))\"")
            #expect(try live.get("/channels/ci/overlayd.js").status == 404)
        }
    }

    /// The source holds the placeholder once, and nothing that reaches another host: no import, no
    /// URL with a scheme outside the comments; its one CSS `url(` is the measuring font's, whose
    /// address comes from `src`. The guard against a second definition is there.
    @Test func selfContained() throws {
        let source = String(decoding: OverlaydModule.source, as: UTF8.self)
        #expect(source.ranges(of: String(decoding: OverlaydModule.placeholder, as: UTF8.self)).count == 1)
        let code = source.split(separator: "\n").filter { !$0.trimmingSpaces().hasPrefix("//") }.joined(separator: "\n")
        for forbidden in ["http:", "https:", "import ", "import(", "@import", "//cdn", "XMLHttpRequest", "WebSocket"] {
            #expect(!code.contains(forbidden), "the module contains \(forbidden)")
        }
        #expect(code.ranges(of: "'url('").count == 1 && code.contains("new FontFace(family, 'url('"))
        #expect(code.contains("if (!customElements.get(TAG)) customElements.define(TAG, OverlaydOverlay);"))
    }

    /// Other settings make another module and another tag; the same settings the same tag in
    /// another process (a cache stays valid across restarts).
    @Test func tagFollowsTheSettings() throws {
        try withLiveServer { first in
            try withLiveServer { second in
                let tag = try #require(try first.get("/overlayd.js").header("ETag"))
                #expect(tag == (try second.get("/overlayd.js").header("ETag")))
                try withLiveServer(
                    started: LiveServer {
                        $0.devices["kiosk"] = DeviceProfile(
                            name: "kiosk", width: 1080, height: 1920, statusBarHeight: 24)
                    }
                ) { other in
                    let module = try other.get("/overlayd.js")
                    #expect(module.header("ETag") != tag)
                    #expect(
                        module.text.contains(
                            #""kiosk":{"width":1080,"height":1920,"statusBarHeight":24,"safeAreaTop":24,"cutout":"none"}"#
                        ))
                }
            }
        }
    }

    /// If-None-Match with the tag is 304 with the tag and no body; HEAD has the tag; another tag is 200.
    @Test func conditional() throws {
        try withLiveServer { live in
            let tag = try #require(try live.get("/overlayd.js").header("ETag"))
            for header in [tag, "W/" + tag, "*"] {
                let response = try live.request("GET", "/overlayd.js", headers: [("If-None-Match", header)])
                #expect(response.status == 304 && response.body.isEmpty && response.header("ETag") == tag, "\(header)")
            }
            #expect(try live.request("GET", "/overlayd.js", headers: [("If-None-Match", "\"other\"")]).status == 200)
            let head = try live.request("HEAD", "/overlayd.js")
            #expect(head.status == 200 && head.header("ETag") == tag && head.body.isEmpty)
        }
    }

    /// A module script is fetched in CORS mode: the answer carries the server's CORS headers, `*`
    /// by default, the page's origin when it is listed, none for an origin not listed.
    @Test func crossOrigin() throws {
        let page = [("Origin", "https://dash.example")]
        try withLiveServer { open in
            #expect(try open.request("GET", "/overlayd.js", headers: page).header("Access-Control-Allow-Origin") == "*")
            try withLiveServer(configure: { $0.corsAllowOrigins = ["https://dash.example"] }) { listed in
                let answer = try listed.request("GET", "/overlayd.js", headers: page)
                #expect(answer.header("Access-Control-Allow-Origin") == "https://dash.example")
                #expect(answer.header("Vary") == "Origin")
                let other = try listed.request(
                    "GET", "/overlayd.js", headers: [("Origin", "https://elsewhere.example")])
                #expect(other.status == 200 && other.header("Access-Control-Allow-Origin") == nil)
            }
        }
    }

    /// With a read token the module still loads (it holds no data; the element sends its token
    /// with what it reads), while the overlay stays closed.
    @Test func openUnderAReadToken() throws {
        try withLiveServer(started: LiveServer.tokenGuarded(reads: true)) { live in
            #expect(try live.get("/overlayd.js").status == 200)
            expectError(try live.get("/overlay"), status: 401, code: "unauthorized")
            #expect(try live.get("/overlay?auth=\(Credential.read)").status == 200)
        }
    }
}
