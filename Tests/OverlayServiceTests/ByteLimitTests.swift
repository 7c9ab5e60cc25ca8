import MicroHTTP
import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// A text's, a subtitle's, an icon's and a key's bytes are bounded as well as their characters: a
/// character may carry any number of combining marks, so 256 characters bound no memory alone.
@Suite("Bytes of a message's texts")
struct ByteLimitTests {
    static func post(_ service: OverlayService, _ fields: [String: String]) -> HTTPResponse {
        var members = fields
        if members["text"] == nil { members["text"] = "x" }
        var writer = JSONWriter()
        writer.beginObject()
        for (name, value) in members.sorted(by: { $0.key < $1.key }) {
            writer.key(text: name)
            writer.string(value)
        }
        writer.endObject()
        return service.answer(
            HTTPRequest(
                "POST", "/messages", headers: [.json], body: String(decoding: writer.bytes, as: UTF8.self)))
    }

    /// `count` characters, each a letter with `marks` acute accents (2 bytes each) on it.
    static func marked(_ count: Int, marks: Int) -> String {
        String(repeating: "e" + String(repeating: "\u{301}", count: marks), count: count)
    }

    @Test(arguments: ["text", "subtitle"])
    func textsAreBoundedInBytes(field: String) throws {
        let service = try OverlayService.testing()
        // 256 characters of 4 bytes: exactly 1,024 bytes, taken.
        #expect(Self.post(service, [field: String(repeating: "😀", count: 256)]).status == 202)
        // 256 characters, 11 bytes each: refused, naming the field; and 100 characters too.
        for text in [Self.marked(256, marks: 5), Self.marked(100, marks: 5)] {
            let refused = Self.post(service, [field: text])
            #expect(refused.status == 422 && refused.json["error"]?["field"]?.string == field)
            #expect(refused.json["error"]?["message"]?.string?.contains("1024 bytes") == true)
        }
        // 93 such characters are 1,023 bytes: taken.
        #expect(Self.post(service, [field: Self.marked(93, marks: 5)]).status == 202)
    }

    @Test func iconsAreBoundedInBytes() throws {
        let service = try OverlayService.testing()
        #expect(Self.post(service, ["icon": "👨‍👩‍👧‍👦🇫🇷OK"]).status == 202)
        let refused = Self.post(service, ["icon": Self.marked(2, marks: 40)])
        #expect(refused.status == 422 && refused.json["error"]?["field"]?.string == "icon")
    }

    @Test func keysAreBoundedInBytes() throws {
        let service = try OverlayService.testing()
        #expect(Self.post(service, ["key": Self.marked(128, marks: 1)]).status == 202)
        let refused = Self.post(service, ["key": Self.marked(128, marks: 2)])
        #expect(refused.status == 422 && refused.json["error"]?["field"]?.string == "key")
    }
}
