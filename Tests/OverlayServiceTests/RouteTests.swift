import MicroHTTP
import OverlayEngine
import ServiceTestSupport
import Testing

@testable import OverlayService

/// The router called directly, without sockets: paths, methods, content types, and the pieces
/// (ETag matching, error mapping, access-log escaping) the live tests only see from outside.
@Suite("Routes")
struct RouteTests {
    /// Each path answers its methods; a trailing slash is the same path, a doubled slash is not.
    @Test(arguments: [
        ("GET", "/", 200), ("GET", "/messages", 200), ("GET", "/messages/", 200), ("POST", "/messages", 422),
        ("GET", "/overlay", 200), ("GET", "/overlay/", 200), ("HEAD", "/overlay", 200), ("GET", "/healthz", 200),
        ("GET", "/metrics", 200), ("GET", "/clock", 200), ("PUT", "/orientation", 422), ("GET", "//overlay", 404),
        ("GET", "/overlay//", 404), ("GET", "/messages//1", 404), ("GET", "", 404), ("GET", "overlay", 404),
        ("GET", "/messages/1", 404), ("OPTIONS", "/messages/1", 204), ("OPTIONS", "/nope", 404),
        ("DELETE", "/", 405), ("GET", "/Overlay", 404),
    ])
    func routing(method: String, path: String, status: Int) throws {
        let response = try OverlayService.testing().answer(HTTPRequest(method, path))
        #expect(response.status == status)
    }

    /// Content types are matched without regard to case or parameters; `+json` types are JSON.
    /// Trimming takes spaces, tabs, CR, LF and CR LF from both ends, and nothing else: not a space
    /// that a combining mark makes part of a letter, not Unicode's other white space.
    @Test(arguments: [
        ("25", "25"), ("", ""), ("  ", ""), ("\r\n", ""), ("\t x \n", "x"), ("\r\n0.5\r\n", "0.5"),
        (" a b ", "a b"), ("\u{301}a ", "\u{301}a"), (" \u{301}a", " \u{301}a"), ("\u{85}a\u{A0}", "\u{85}a\u{A0}"),
        ("é ", "é"), ("\r", ""), ("\n\r", ""),
    ])
    func trimming(text: String, trimmed: String) {
        #expect(text.trimmingSpaces() == trimmed)
        #expect(text[...].trimmingSpaces() == trimmed)
    }

    @Test(arguments: [
        "application/json", "Application/JSON; charset=UTF-8", " application/json ; charset=utf-8",
        "application/merge-patch+json", "APPLICATION/X-WWW-FORM-URLENCODED",
        "application/x-www-form-urlencoded; charset=utf-8", "",
    ])
    func contentTypes(type: String) throws {
        let service = try OverlayService.testing()
        let response = service.answer(
            HTTPRequest(
                "POST", "/messages", headers: type.isEmpty ? [] : [Header(name: "Content-Type", value: type)],
                body: #"{"text": "hi", "kind": "sent"}"#))
        #expect(response.status == 202)
        #expect(response.json["kind"]?.string == "sent")
        #expect(response.json["text"]?.string == "hi")
        #expect(
            MediaType(type).type == type.split(separator: ";").first.map { $0.trimmingSpaces().lowercased() }
                ?? "")
    }

    /// The media type read from the header is the text before any `;`, trimmed and lower-cased
    /// (Unicode lower case too, for a type that is none of ours and is named in the 415).
    @Test(arguments: [
        "", " ", ";", "application/json", "APPLICATION/JSON;charset=utf-8", "\t text/plain \r\n", "a/ÉB; x", "a/éb",
        "x/ÀÉ", "application/JSON\u{301}", ";application/json", "text/plain ;; q", "\r\n",
    ])
    func mediaTypes(header: String) {
        #expect(
            MediaType(header).type
                == (header.split(separator: ";", omittingEmptySubsequences: false).first.map {
                    $0.trimmingSpaces().lowercased()
                } ?? ""))
    }

    /// The byte-level reading of `Content-Type` (no String made for an ASCII value) gives the
    /// same `MediaType` as reading the header's text, for every case that could tell them apart:
    /// case, blanks, parameters, the `+json` suffix, control characters that `| 0x20` would fold
    /// onto `/` or `-`, and non-ASCII text.
    @Test(arguments: [
        "", " ", ";", "application/json", "APPLICATION/JSON;charset=utf-8", "\t text/plain \r\n", "a/ÉB; x",
        "+json", "+JSON", "json", "application/vnd.api+json; v=1", "application/x-www-form-urlencoded",
        "Multipart/Form-Data; boundary=x", "multipart/form-data2", "text/plai", "application\u{0F}json",
        "text\u{0F}plain", "multipart/form\u{0D}data", "application/json\u{301}", "application/\u{212A}son",
        "TEXT/PLAIN", "application/xml", "text/plain\u{0}",
    ])
    func mediaTypeFromBytes(header: String) {
        var bytes = header
        let fromBytes = bytes.withUTF8 { MediaType.kind(of: UnsafeRawBufferPointer($0)) }
        #expect(fromBytes == MediaType.kind(ofType: MediaType(header).type))
        #expect(MediaType.kind(of: nil) == .unnamedOrForm)
    }

    /// The header name is matched without regard to case.
    @Test func headerNamesIgnoreCase() throws {
        let service = try OverlayService.testing()
        let response = service.answer(
            HTTPRequest(
                "POST", "/messages", headers: [Header(name: "content-TYPE", value: "application/xml")], body: "<a/>"))
        #expect(response.status == 415)
    }

    /// If-None-Match compares weakly, accepts lists and `*`, and nothing else.
    @Test func etagMatching() throws {
        func matches(_ header: String) -> Bool { EntityTagCondition(header).matches(12) }
        #expect(matches(#"W/"12""#))
        #expect(matches(#""12""#))
        #expect(matches(#"W/"1", W/"12""#))
        #expect(matches(#" W/"11" ,W/"12" "#))
        #expect(matches("*"))
        #expect(matches(#"W/"x", *"#))
        #expect(!matches(#"W/"1""#))
        #expect(!matches(#"W/"120""#))
        #expect(!matches("12"))
        #expect(!matches(""))
        #expect(!matches(#"W/"18446744073709551628""#), "a version past UInt64 wraps to nothing")
    }

    /// One tag naming a version is read as that version; anything else is a list whose first
    /// named version is what a long-poll waits on.
    @Test func etagShapes() {
        #expect(EntityTagCondition(#"W/"7""#) == .version(7))
        #expect(EntityTagCondition(#"  "7"  "#) == .version(7))
        #expect(EntityTagCondition(#"W/"7", "#) == .list(versions: [7], any: false))
        #expect(EntityTagCondition(#"W/"a", W/"3", W/"5""#) == .list(versions: [3, 5], any: false))
        #expect(EntityTagCondition(#"W/"a", W/"3", W/"5""#).firstVersion == 3)
        #expect(EntityTagCondition("*") == .list(versions: [], any: true))
        #expect(EntityTagCondition("*").firstVersion == nil)
        #expect(EntityTagCondition(#"W/7"#) == .list(versions: [], any: false))
        #expect(EntityTagCondition(#"W/"+7""#) == .list(versions: [], any: false))
        #expect(EntityTagCondition(#""""#) == .list(versions: [], any: false))
    }

    /// Engine refusals become the statuses of MODEL §5; Retry-After is whole seconds, at least 1.
    @Test func engineErrors() throws {
        let invalid = APIError(EngineError.invalidField(field: "text", reason: "must not be empty"))
        #expect(invalid.status == 422)
        #expect(invalid.field == "text")
        #expect(invalid.code == "invalid_field")
        #expect(APIError(EngineError.messageNotFound(id: 5)).status == 404)
        let ended = APIError(EngineError.messageEnded(id: 5, state: .done))
        #expect(ended.status == 409)
        #expect(ended.message.contains("done"))
        for (seconds, header) in [
            (0.0, "1"), (0.2, "1"), (1.0, "1"), (1.000_000_001, "2"), (2.75, "3"), (300.25, "301"),
        ] {
            let full = APIError(EngineError.queueFull(limit: 2, retryAfter: .seconds(seconds)))
            #expect(full.status == 503)
            #expect(full.response.header("Retry-After") == header, "\(seconds)")
        }
        let body = String(decoding: invalid.body, as: UTF8.self)
        #expect(body == #"{"error":{"code":"invalid_field","message":"text must not be empty","field":"text"}}"#)
        #expect(invalid.response.header("Content-Type") == "application/json; charset=utf-8")
    }

    /// A manual clock is not moved by anything but POST /clock; the real clock cannot be moved.
    @Test func clockModes() throws {
        let manual = try OverlayService.testing()
        #expect(manual.answer(HTTPRequest("GET", "/clock")).json["now"]?.number == 0)
        let moved = manual.answer(
            HTTPRequest(
                "POST", "/clock", headers: [Header(name: "Content-Type", value: "application/json")],
                body: #"{"advance": 1e9}"#))
        #expect(moved.json["now"]?.number == 1e9)
        var realConfiguration = ServiceConfiguration()
        realConfiguration.ephemeral = true
        let real = try OverlayService(configuration: realConfiguration)
        defer { real.shutdown() }
        let refused = real.answer(HTTPRequest("POST", "/clock", body: "1"))
        #expect(refused.status == 409)
        #expect(refused.json["error"]?["code"]?.string == "clock_not_manual")
    }

    /// The access log percent-encodes what could forge or break a line.
    @Test func accessLogEscaping() throws {
        #expect(AccessLog.escaped("/messages/1") == "/messages/1")
        #expect(AccessLog.escaped("/a b\"c%\n") == "/a%20b%22c%25%0A")
        #expect(AccessLog.escaped("/é") == "/%C3%A9")
        #expect(AccessLog.escaped("/\u{7F}\u{0}") == "/%7F%00")
    }
}
