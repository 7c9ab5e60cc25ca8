import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// What a cache (a browser, nginx's proxy_cache, a corporate proxy) may do with an answer: one
/// with a version must be checked against its ETag before reuse, and one without may not be kept.
@Suite("Caching")
struct CachingTests {
    /// Every read carries a `Cache-Control`; those of a channel's version carry its ETag and
    /// answer 304 to it.
    @Test func everyReadSaysWhatCachesMayDo() throws {
        try withLiveServer { live in
            #expect(try live.post("/messages", json: #"{"text": "cached?"}"#).status == 202)
            let version = try #require(try live.version())
            for path in ["/messages", "/messages/1", "/statusbar", "/overlay", "/channels/default/messages"] {
                let answer = try live.get(path)
                #expect(answer.status == 200, "\(path)")
                #expect(answer.header("Cache-Control") == "no-cache", "\(path)")
                #expect(answer.header("ETag") == "W/\"\(version)\"", "\(path)")
                let again = try live.request("GET", path, headers: [("If-None-Match", "W/\"\(version)\"")])
                #expect(again.status == 304, "\(path)")
                #expect(again.body.isEmpty, "\(path)")
                #expect(again.header("ETag") == "W/\"\(version)\"", "\(path)")
                let other = try live.request("GET", path, headers: [("If-None-Match", "W/\"\(version + 1)\"")])
                #expect(other.status == 200, "\(path)")
            }
            for path in ["/", "/metrics", "/healthz", "/clock", "/channels", "/channels/default", "/nowhere"] {
                let answer = try live.get(path)
                #expect(answer.header("Cache-Control") == "no-store", "\(path)")
                #expect(answer.header("ETag") == nil, "\(path)")
            }
            // `*` matches only a page that exists: an expired cursor is 409 whatever the tags.
            let expired = try live.request("GET", "/messages?after=999", headers: [("If-None-Match", "*")])
            expectError(expired, status: 409, code: "cursor_expired", field: "after")
            #expect(try live.request("GET", "/messages", headers: [("If-None-Match", "*")]).status == 304)
            // A refusal is never kept either.
            #expect(try live.get("/messages?limit=0").header("Cache-Control") == "no-store")
        }
    }

    /// A change is a new version: the old ETag no longer matches and the new answer shows it.
    @Test func aChangeEndsTheValidator() throws {
        try withLiveServer { live in
            #expect(try live.post("/messages", json: #"{"text": "first"}"#).status == 202)
            let tag = try #require(live.get("/messages").header("ETag"))
            #expect(try live.post("/messages", json: #"{"text": "second"}"#).status == 202)
            let after = try live.request("GET", "/messages", headers: [("If-None-Match", tag)])
            #expect(after.status == 200)
            #expect(after.header("ETag") != tag)
            #expect(after.json["messages"]?.array?.count == 2)
        }
    }

    /// The API description does not change while the server runs: its own tag, and 304 to it.
    @Test func theDescriptionHasItsOwnTag() throws {
        try withLiveServer { live in
            let first = try live.get("/openapi.yaml")
            let tag = try #require(first.header("ETag"))
            #expect(first.header("Cache-Control") == "no-cache")
            #expect(try live.request("GET", "/openapi.yaml", headers: [("If-None-Match", tag)]).status == 304)
            #expect(try live.request("GET", "/openapi.yaml", headers: [("If-None-Match", "W/\(tag)")]).status == 304)
            #expect(try live.request("GET", "/openapi.yaml", headers: [("If-None-Match", "\"other\"")]).status == 200)
        }
    }

    /// Every fixed answer (the page, its font, the element's module, the description) is one
    /// `StaticAnswer`: a strong tag that is its bytes' hash, `no-cache`, and 304 with no body and
    /// the same validator to the tag in any form, `*` included; another tag is the whole answer.
    @Test(arguments: ["/preview", "/preview/font", "/overlayd.js", "/openapi.yaml"])
    func fixedAnswersAnswerTheirTag(path: String) throws {
        try withLiveServer { live in
            let first = try live.get(path)
            #expect(first.status == 200)
            let tag = try #require(first.header("ETag"))
            #expect(tag == "\"\(StaticAnswer.fnv1a(first.body))\"")
            #expect(first.header("Cache-Control") == "no-cache")
            for condition in [tag, "W/\(tag)", "\"other\", \(tag)", "*"] {
                let again = try live.request("GET", path, headers: [("If-None-Match", condition)])
                #expect(again.status == 304, "\(path) \(condition)")
                #expect(again.body.isEmpty)
                #expect(again.header("ETag") == tag)
                #expect(again.header("Cache-Control") == "no-cache")
            }
            let other = try live.request("GET", path, headers: [("If-None-Match", "\"other\"")])
            #expect(other.status == 200)
            #expect(other.body == first.body)
        }
    }

    /// Listed origins make the CORS answer depend on the request's: `Vary: Origin` then, on
    /// answers to requests with and without one, shared answers included.
    @Test func listedOriginsVary() throws {
        try withLiveServer(configure: { $0.corsAllowOrigins = ["https://dash.example"] }) { live in
            #expect(try live.post("/messages", json: #"{"text": "vary"}"#).status == 202)
            for path in ["/overlay", "/messages", "/healthz"] {
                #expect(try live.get(path).header("Vary") == "Origin", "\(path)")
                let cross = try live.request("GET", path, headers: [("Origin", "https://dash.example")])
                #expect(cross.header("Vary") == "Origin", "\(path)")
                #expect(cross.header("Access-Control-Allow-Origin") == "https://dash.example", "\(path)")
            }
        }
    }
}

/// `limits.maxPageBytes`: a page of `GET /messages` stops before the bound (always holding one
/// message), and `next` goes on from there, so that the pages together hold every message once.
@Suite("Page bytes")
struct PageBytesTests {
    @Test func pagesStopAtTheirBoundAndGoOn() throws {
        let bound = 64 * 1024
        try withLiveServer(configure: { $0.maxPageBytes = bound }) { live in
            // The largest message there is: a text and a subtitle of 1,024 bytes each, about 2.4 KB
            // of JSON; 100 of them are four pages of the bound.
            let text = String(repeating: "😀", count: 256)
            let body = #"{"text": "\#(text)", "subtitle": "\#(text)"}"#
            for _ in 0..<100 { #expect(try live.post("/messages", json: body).status == 202) }
            var ids: [Int] = []
            var path = "/messages?limit=1000"
            var pages = 0
            while true {
                let page = try live.get(path)
                #expect(page.status == 200)
                #expect(page.body.count <= bound, "page \(pages) is \(page.body.count) bytes")
                let messages = try #require(page.json["messages"]?.array)
                #expect(!messages.isEmpty)
                ids += messages.compactMap { $0["id"]?.int }
                pages += 1
                guard let next = page.json["next"]?.int else { break }
                #expect(next == ids.last)
                path = "/messages?limit=1000&after=\(next)"
            }
            #expect(ids == Array(1...100))
            #expect(pages == 4)
        }
    }

    /// A message larger than the bound is still a page of its own (a bound below any message, as
    /// only a configuration built in code can set: the file's least is 64 KiB).
    @Test func oneMessageAlwaysFits() throws {
        try withLiveServer(configure: { $0.maxPageBytes = 1024 }) { live in
            let text = String(repeating: "😀", count: 256)
            #expect(try live.post("/messages", json: #"{"text": "\#(text)"}"#).status == 202)
            #expect(try live.post("/messages", json: #"{"text": "small"}"#).status == 202)
            let first = try live.get("/messages")
            #expect(first.json["messages"]?.array?.count == 1)
            #expect(first.json["next"]?.int == 1)
            let second = try live.get("/messages?after=1")
            #expect(second.json["messages"]?.array?.first?["text"]?.string == "small")
            #expect(second.json["next"] == .null)
        }
    }

    /// The key is read and checked like the other limits.
    @Test func theBoundIsConfigured() {
        #expect(ConfigurationError.loading(file: #"{"limits": {"maxPageBytes": 1000}}"#)?.key == "limits.maxPageBytes")
        #expect(
            ConfigurationError.loading(file: #"{"limits": {"sendBufferBytes": -1}}"#)?.key == "limits.sendBufferBytes")
    }
}
