import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

@Suite("Live server basics")
struct LiveSmokeTests {
    /// A plain-text POST with the kind in the query is queued, shown, and answered 202 with Location.
    @Test func curlStylePost() throws {
        try withLiveServer { live in
            let posted = try live.request(
                "POST", "/messages?kind=sent", headers: [FormBody.urlEncoded],
                body: "Upload done")
            #expect(posted.status == 202)
            #expect(posted.header("Location") == "/messages/1")
            #expect(posted.json["kind"]?.string == "sent")
            #expect(posted.json["text"]?.string == "Upload done")
            let overlay = try live.overlay()
            #expect(overlay["phase"]?.string == "showing")
            #expect(overlay["message"]?["id"]?.int == 1)
        }
    }
}
