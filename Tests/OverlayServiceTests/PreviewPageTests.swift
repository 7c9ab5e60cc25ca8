import OverlayEngine
import ServiceTestSupport
import Testing

@testable import OverlayService

/// `GET /preview`: one page, served with a strong ETag and 304, that needs nothing from anywhere
/// but overlayd (it draws through `/overlayd.js`, `OverlaydModuleTests`). Its drawing is checked in
/// Chromium by `scripts/browser-test`.
@Suite("Preview page")
struct PreviewPageTests {
    /// The page: HTML, small, its own CSP, allowing scripts of its own origin (the module) and no other.
    @Test func served() throws {
        try withLiveServer(configure: { $0.engine.progressBarCapWidth = 3 }) { live in
            let response = try live.get("/preview")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "text/html; charset=utf-8")
            #expect(response.body.count <= 40 * 1024, "\(response.body.count) bytes")
            #expect(response.text.hasPrefix("<!doctype html>"))
            let policy = try #require(response.header("Content-Security-Policy"))
            #expect(policy.contains("default-src 'none'") && policy.contains("connect-src 'self'"))
            #expect(policy.contains("script-src 'self' 'unsafe-inline';"))
            #expect(policy.contains("font-src 'self'"))
            #expect(policy.contains("frame-ancestors 'none'"))
            #expect(response.header("X-Frame-Options") == "DENY")
            #expect(response.header("Cache-Control") == "no-cache")
            // A strong tag (no W/ prefix) holding the page's 64-bit hash in decimal.
            let tag = try #require(response.header("ETag"))
            #expect(tag.hasPrefix("\"") && tag.hasSuffix("\"") && UInt64(tag.dropFirst().dropLast()) != nil)
        }
    }

    /// Nothing in the page names another host: no URL with a scheme, no protocol-relative one, no
    /// stylesheet; its one import is overlayd's own module, which draws (and loads the font).
    @Test func selfContained() throws {
        let page = String(decoding: PackageResources.PreviewPage_html, as: UTF8.self)
        for forbidden in ["http:", "https:", "src=\"//", "href=\"//", "@import", "<link rel=\"stylesheet", "url("] {
            #expect(!page.contains(forbidden), "the page contains \(forbidden)")
        }
        #expect(page.ranges(of: "import ").count == 1 && page.contains("import {settings} from '/overlayd.js';"))
        #expect(page.ranges(of: "<script").count == 1 && page.contains("<script type=\"module\">"))
        #expect(
            page.contains(#"<link rel="icon" href="data:,">"#), "a page without an icon makes the browser ask for one")
    }

    /// If-None-Match with the tag (strong, weak form, in a list, or `*`) is 304; another tag is 200.
    @Test func conditional() throws {
        try withLiveServer { live in
            let tag = try #require(try live.get("/preview").header("ETag"))
            for header in [tag, "W/" + tag, "\"other\", " + tag, "*"] {
                let response = try live.request("GET", "/preview", headers: [("If-None-Match", header)])
                #expect(response.status == 304, "\(header)")
                #expect(response.body.isEmpty && response.header("ETag") == tag)
            }
            #expect(try live.request("GET", "/preview", headers: [("If-None-Match", "\"other\"")]).status == 200)
            let head = try live.request("HEAD", "/preview")
            #expect(head.status == 200 && head.header("ETag") == tag)
        }
    }

    /// The page is the same bytes, with the same tag, whatever the configuration (the settings are
    /// the module's) and in every process: a cache stays valid across restarts.
    @Test func tagFollowsTheBytes() throws {
        try withLiveServer { first in
            try withLiveServer(configure: {
                $0.devices["kiosk"] = DeviceProfile(name: "kiosk", width: 1080, height: 1920, statusBarHeight: 24)
            }) { other in
                let page = try first.get("/preview")
                #expect(page.header("ETag") == "\"\(StaticAnswer.fnv1a(PackageResources.PreviewPage_html))\"")
                #expect(page.body == PackageResources.PreviewPage_html)
                #expect(try other.get("/preview").header("ETag") == page.header("ETag"))
            }
        }
    }

    /// `/channels/{name}/preview` is the same page; serving it creates no channel, and a bad name
    /// or another method is refused as on every path.
    @Test func channelPreview() throws {
        try withLiveServer { live in
            let page = try live.get("/channels/ci/preview")
            #expect(page.status == 200)
            #expect(page.body == (try live.get("/preview").body))
            #expect(try live.get("/channels/ci").status == 404)
            #expect(try live.get("/preview/").status == 200)
            expectError(try live.get("/channels/b%20d/preview"), status: 400, code: "bad_request", field: "channel")
            let post = try live.request("POST", "/preview", headers: [("Content-Type", "text/plain")], body: "x")
            expectError(post, status: 405, code: "method_not_allowed")
            #expect(post.header("Allow") == "GET, HEAD, OPTIONS")
            #expect(try live.request("OPTIONS", "/channels/ci/preview").header("Allow") == "GET, HEAD, OPTIONS")
        }
    }

    /// With a read token the page still loads (it holds no data; its token is in the fragment,
    /// which a browser never sends) while what it reads stays closed.
    @Test func openUnderAReadToken() throws {
        try withLiveServer(started: LiveServer.tokenGuarded(reads: true)) { live in
            #expect(try live.get("/preview").status == 200)
            #expect(try live.get("/channels/ci/preview").status == 200)
            #expect(try live.get("/preview/font").status == 200)
            expectError(try live.get("/overlay"), status: 401, code: "unauthorized")
            expectError(try live.get("/previews"), status: 401, code: "unauthorized")
            expectError(try live.get("/channels/ci/preview/x"), status: 401, code: "unauthorized")
        }
    }

    /// `GET /preview/font` is the configured font file byte for byte, as the web component's font face
    /// loads it: its media type, a strong tag and 304; a file that cannot be read is 404.
    @Test func font() throws {
        try withLiveServer { live in
            let response = try live.get("/preview/font")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "font/otf")
            #expect(response.body == (try ConfigurationLoader.readFile(TextFont().path)))
            #expect(response.header("Cache-Control") == "no-cache")
            let tag = try #require(response.header("ETag"))
            #expect(tag.hasPrefix("\"") && UInt64(tag.dropFirst().dropLast()) != nil)
            let again = try live.request("GET", "/preview/font", headers: [("If-None-Match", tag)])
            #expect(again.status == 304 && again.body.isEmpty)
            #expect(try live.request("HEAD", "/preview/font").header("ETag") == tag)
            #expect(try live.get("/channels/ci/preview/font").status == 404)
            try withLiveServer(configure: { $0.text.path = "/nonexistent/font.otf" }) { missing in
                expectError(try missing.get("/preview/font"), status: 404, code: "not_found")
                for (bytes, type) in [
                    (Array("OTTO".utf8), "font/otf"), ([0, 1, 0, 0], "font/ttf"), (Array("wOF2".utf8), "font/woff2"),
                    (Array("ttcf".utf8), "font/collection"),
                ] {
                    #expect(PreviewFont.mediaType(of: bytes + [0, 0]) == type)
                }
            }
        }
    }
}
