import MicroHTTP
import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// A refused write changes nothing, channels included: a 422 to a channel that does not exist
/// leaves no channel behind to count against `limits.maxChannels`.
@Suite("Refused writes make no channel")
struct RefusedWriteTests {
    static let refused: [(path: String, body: String)] = [
        ("/messages", #"{"text": ""}"#),
        ("/messages", #"{"text": "x", "progress": 2}"#),
        ("/messages", #"{"text": "x", "at": 99999999999}"#),
        ("/messages", #"{"text": "x", "icon": "abcde"}"#),
        ("/messages", #"{"text": "x", "key": "\#(String(repeating: "k", count: 129))"}"#),
        ("/messages", #"{"text": "\#(String(repeating: "t", count: 257))"}"#),
    ]

    @Test func refusedPostsLeaveNoChannel() throws {
        let service = try OverlayService.testing { $0.maxChannels = 4 }
        for (index, write) in Self.refused.enumerated() {
            let response = service.answer(
                HTTPRequest(
                    "POST", "/channels/new-\(index)\(write.path)", headers: [.json], body: write.body))
            #expect(response.status == 422, "\(write.body): \(response.status)")
        }
        let names = service.answer(HTTPRequest("GET", "/channels")).json["channels"]?.array?
            .compactMap { $0["name"]?.string }
        #expect(names == ["default"])
        // The three channels the limit leaves are all still there to make.
        for index in 0..<3 {
            let made = service.answer(
                HTTPRequest("POST", "/channels/real-\(index)/messages", body: "hello \(index)"))
            #expect(made.status == 202)
        }
        let over = service.answer(HTTPRequest("POST", "/channels/one-more/messages", body: "x"))
        #expect(over.status == 503 && over.json["error"]?["code"]?.string == "too_many_channels")
    }
}
