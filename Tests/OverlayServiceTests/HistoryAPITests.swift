import MicroHTTP
import ServiceTestSupport
import Testing

@testable import OverlayService

/// `GET /messages?state=ended`: the history, the most recently ended first, paged as the others.
@Suite("History API")
struct HistoryAPITests {
    static func list(_ service: OverlayService, _ query: [QueryItem]) -> HTTPResponse {
        service.answer(
            HTTPRequest("GET", "/messages", query: [QueryItem(name: "state", value: "ended")] + query))
    }

    @Test func newestFirstPagedAndExpiring() throws {
        let service = try OverlayService.testing { $0.engine.historySize = 3 }
        for index in 1...4 {
            let body = #"{"text": "m\#(index)", "duration": 1}"#
            #expect(service.answer(HTTPRequest("POST", "/messages", headers: [.json], body: body)).status == 202)
        }
        #expect(service.answer(HTTPRequest("DELETE", "/messages/4")).status == 200)
        #expect(service.answer(HTTPRequest("POST", "/clock", body: "100")).status == 200)
        let first = Self.list(service, [QueryItem(name: "limit", value: "2")]).json
        #expect(first["messages"]?.array?.map { $0["id"]?.int } == [3, 2])
        #expect(first["next"]?.int == 2)
        let rest = Self.list(service, [QueryItem(name: "after", value: "2")]).json
        #expect(rest["messages"]?.array?.map { $0["id"]?.int } == [1])
        #expect(rest["messages"]?[0]?["state"]?.string == "done" && rest["next"] == .null)
        // Message 4, cancelled first of all, has left a history of three.
        let gone = Self.list(service, [QueryItem(name: "after", value: "4")])
        #expect(gone.status == 409 && gone.json["error"]?["code"]?.string == "cursor_expired")
        #expect(gone.json["error"]?["message"]?.string?.contains("history") == true)
        let bad = service.answer(
            HTTPRequest("GET", "/messages", query: [QueryItem(name: "state", value: "old")]))
        #expect(bad.status == 422 && bad.json["error"]?["field"]?.string == "state")
    }
}
