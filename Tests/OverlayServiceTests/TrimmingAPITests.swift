import MicroHTTP
import OverlayEngine
import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// MODEL §2's trimming through the dispatcher, in every body a text comes in: a grapheme cluster at
/// either end goes only when all its scalars are white space, so a space that carries a combining
/// mark is kept, and a text of white space alone is 422 naming its field.
@Suite("Trimming through the API (MODEL §2)")
struct TrimmingAPITests {
    /// A text as sent and as stored; nil: refused as empty.
    static let texts: [(sent: String, stored: String?)] = [
        ("x \u{301}", "x \u{301}"), ("\u{A0}\u{301}", "\u{A0}\u{301}"), ("  x  ", "x"), ("\t\n x \r\n", "x"),
        (" \t \t", nil), ("\u{A0}\u{3000}\n", nil), (" 👨‍👩‍👧‍👦\u{A0}", "👨‍👩‍👧‍👦"), ("x\u{200B}", "x\u{200B}"),
        (" \u{301}a ", " \u{301}a"),
    ]

    /// The ways a text reaches POST or PATCH: a JSON member, a form field (`curl -d text=…`), a
    /// query parameter, and a plain-text body.
    static let ways = ["json", "form", "query", "plain"]

    static func request(_ method: String, _ path: String, way: String, text: String) -> HTTPRequest {
        switch way {
        case "json":
            var writer = JSONWriter()
            writer.beginObject()
            writer.key("text")
            writer.string(text)
            writer.endObject()
            return HTTPRequest(
                method: method, path: path, headers: [Header(name: "Content-Type", value: "application/json")],
                body: writer.bytes)
        case "form":
            return HTTPRequest(
                method: method, path: path,
                headers: [Header(name: "Content-Type", value: "application/x-www-form-urlencoded")],
                body: Array("text=\(FormBody.encoded(text))".utf8))
        case "query":
            return HTTPRequest(
                method: method, path: path, query: QueryItem.items(of: Array("text=\(FormBody.encoded(text))".utf8)),
                headers: [], body: [])
        default:
            return HTTPRequest(
                method: method, path: path, headers: [Header(name: "Content-Type", value: "text/plain")],
                body: Array(text.utf8))
        }
    }

    static func expectStoredOrRefused(
        _ response: HTTPResponse, _ stored: String?, status: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        let json = response.json
        if let stored {
            #expect(response.status == status, "\(json)", sourceLocation: sourceLocation)
            #expect(json["text"]?.string == stored, sourceLocation: sourceLocation)
        } else {
            #expect(response.status == 422, sourceLocation: sourceLocation)
            #expect(json["error"]?["code"]?.string == "invalid_field", sourceLocation: sourceLocation)
            #expect(json["error"]?["field"]?.string == "text", sourceLocation: sourceLocation)
        }
    }

    /// POST keeps what is not white space, and the overlay shows the kept text.
    @Test(arguments: TrimmingAPITests.ways)
    func post(way: String) throws {
        for (sent, stored) in Self.texts {
            let service = try OverlayService.testing()
            let posted = service.answer(Self.request("POST", "/messages", way: way, text: sent))
            Self.expectStoredOrRefused(posted, stored, status: 202)
            let read = service.answer(HTTPRequest("GET", "/messages/1"))
            #expect(read.status == (stored == nil ? 404 : 200), "\(sent.unicodeScalars.map(\.value))")
            if let stored {
                #expect(read.json["text"]?.string == stored)
                let overlay = service.answer(HTTPRequest("GET", "/overlay")).json
                #expect(overlay["message"]?["text"]?.string == stored)
            }
        }
    }

    /// PATCH trims by the same rule, and a refused one leaves the text as it was.
    @Test(arguments: TrimmingAPITests.ways)
    func patch(way: String) throws {
        for (sent, stored) in Self.texts {
            let service = try OverlayService.testing()
            #expect(service.answer(HTTPRequest("POST", "/messages", body: "before")).status == 202)
            let patched = service.answer(Self.request("PATCH", "/messages/1", way: way, text: sent))
            Self.expectStoredOrRefused(patched, stored, status: 200)
            let read = service.answer(HTTPRequest("GET", "/messages/1")).json
            #expect(read["text"]?.string == stored ?? "before", "\(sent.unicodeScalars.map(\.value))")
        }
    }

    /// The subtitle follows the same rule, in JSON as in a form.
    @Test func subtitle() throws {
        let service = try OverlayService.testing()
        let posted = service.answer(
            HTTPRequest(
                "POST", "/messages",
                headers: [Header(name: "Content-Type", value: "application/x-www-form-urlencoded")],
                body: "text=a&subtitle=\(FormBody.encoded("\u{A0}\u{301} "))"))
        #expect(posted.status == 202)
        #expect(posted.json["subtitle"]?.string == "\u{A0}\u{301}")
        let empty = service.answer(
            HTTPRequest(
                "PATCH", "/messages/1", headers: [Header(name: "Content-Type", value: "application/json")],
                body: #"{"subtitle": " \u00a0\t"}"#))
        #expect(empty.status == 422)
        #expect(empty.json["error"]?["field"]?.string == "subtitle")
    }
}
