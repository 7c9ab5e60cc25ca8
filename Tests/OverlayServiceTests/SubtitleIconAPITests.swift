import OverlayEngine
import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// The message fields `subtitle` and `icon` (§10) through real HTTP: in every body the API reads,
/// trimmed, checked, removed by a PATCH with null, changed by a keyed POST, listed by
/// `GET /messages`; and the overlay they give, measured with Inter as the server measures.
@Suite("Subtitle and icon through the API (§10)")
struct SubtitleIconAPITests {
    /// ⬆️ (U+2B06 U+FE0F) percent-encoded.
    static let arrow = "%E2%AC%86%EF%B8%8F"

    /// The ways a sender posts a text with a subtitle "  2 of 8 " and the icon ⬆️.
    static let bodies: [(name: String, path: String, headers: [(String, String)], body: String)] = [
        (
            "json", "/messages", [("Content-Type", "application/json")],
            #"{"text": "Uploading", "subtitle": "  2 of 8 ", "icon": "⬆️"}"#
        ),
        (
            "query", "/messages?subtitle=%20%202%20of%208%20&icon=\(arrow)", [("Content-Type", "text/plain")],
            "Uploading"
        ),
        ("form", "/messages", [FormBody.urlEncoded], "text=Uploading&subtitle=++2+of+8+&icon=\(arrow)"),
        {
            let multipart = FormBody.multipart([
                ("text", nil, "Uploading"), ("subtitle", nil, "  2 of 8 "), ("icon", nil, "⬆️"),
            ])
            return ("multipart", "/messages", [multipart.header], multipart.body)
        }(),
    ]

    /// Each way gives the same message: trimmed subtitle, the icon, in the answer, in
    /// `GET /messages/{id}`, in `GET /messages` and in the overlay's `message`.
    @Test(arguments: SubtitleIconAPITests.bodies.map(\.name))
    func everyBody(_ name: String) throws {
        let way = try #require(Self.bodies.first { $0.name == name })
        try withLiveServer { live in
            let posted = try live.request("POST", way.path, headers: way.headers, body: way.body)
            #expect(posted.status == 202, "\(posted.text)")
            for message in [
                posted.json, try live.get("/messages/1").json, try live.get("/messages").json["messages"]?[0] ?? .null,
                try live.overlay()["message"] ?? .null,
            ] {
                #expect(message["text"]?.string == "Uploading")
                #expect(message["subtitle"]?.string == "2 of 8")
                #expect(message["icon"]?.string == "⬆️")
            }
        }
    }

    /// PATCH sets either field in any body and `null` removes it; the overlay follows.
    @Test func patchAndRemove() throws {
        try withLiveServer(configure: { $0.engine.presentation = .pill }) { live in
            #expect(try live.post("/messages", json: #"{"text": "Uploading", "kind": "sending"}"#).status == 202)
            #expect(try live.get("/messages/1").json["subtitle"]?.isNull == true)
            let form = try live.request(
                "PATCH", "/messages/1", headers: [FormBody.urlEncoded], body: "subtitle=one&icon=%E2%AD%90")
            #expect(form.json["subtitle"]?.string == "one")
            #expect(form.json["icon"]?.string == "⭐")
            #expect(try live.request("PATCH", "/messages/1?subtitle=two").json["subtitle"]?.string == "two")
            #expect(try live.overlay()["subtitle"]?["text"]?.string == "two")
            let removed = try live.request(
                "PATCH", "/messages/1", headers: [("Content-Type", "application/json")],
                body: #"{"subtitle": null, "icon": null}"#)
            #expect(removed.status == 200)
            #expect(removed.json["subtitle"]?.isNull == true)
            #expect(removed.json["icon"]?.isNull == true)
            let overlay = try live.overlay()
            #expect(overlay["subtitle"]?.isNull == true)
            #expect(overlay["message"]?["icon"]?.isNull == true)
            #expect(overlay["label"]?["frame"]?["height"]?.number == 50)
        }
    }

    /// A POST with the key of a live message changes its subtitle and icon in place (200).
    @Test func keyedUpdate() throws {
        try withLiveServer { live in
            let first = try live.post("/messages", json: #"{"text": "Uploading", "key": "up", "subtitle": "1 of 3"}"#)
            #expect(first.status == 202)
            let second = try live.request(
                "POST", "/messages", body: "text=Uploading&key=up&subtitle=2+of+3&icon=%E2%AD%90")
            #expect(second.status == 200)
            #expect(second.json["id"]?.int == 1)
            #expect(second.json["subtitle"]?.string == "2 of 3")
            let listed = try live.get("/messages").json["messages"]?.array ?? []
            #expect(listed.count == 1)
            #expect(listed.first?["subtitle"]?.string == "2 of 3")
            #expect(listed.first?["icon"]?.string == "⭐")
        }
    }

    /// A ZWJ family, a flag, four of them: one to four clusters, accepted as sent.
    @Test(arguments: ["👨‍👩‍👧‍👦", "🇫🇷", "👍🏽", "OK", "👨‍👩‍👧‍👦👨‍👩‍👧‍👦👨‍👩‍👧‍👦👨‍👩‍👧‍👦", "🇫🇷🇩🇪🇯🇵🇧🇷"])
    func iconsOfFewClusters(_ icon: String) throws {
        try withLiveServer { live in
            let posted = try live.post("/messages", json: #"{"text": "a", "icon": "\#(icon)"}"#)
            #expect(posted.status == 202, "\(posted.text)")
            #expect(posted.json["icon"]?.string == icon)
        }
    }

    /// A blank or too long subtitle, an icon of five clusters or none: 422 naming the field, in
    /// POST and PATCH, whatever the body; nothing changes.
    @Test func refusals() throws {
        try withLiveServer(started: LiveServer.startedWithTwoMessages()) { live in
            let before = try live.observableState()
            let json = [("Content-Type", "application/json")]
            let long = String(repeating: "s", count: 257)
            let cases: [(String, String, [(String, String)], String, String)] = [
                ("POST", "/messages", json, #"{"text": "a", "subtitle": "   "}"#, "subtitle"),
                ("POST", "/messages", json, #"{"text": "a", "subtitle": ""}"#, "subtitle"),
                ("POST", "/messages", json, #"{"text": "a", "subtitle": "\#(long)"}"#, "subtitle"),
                ("POST", "/messages", [FormBody.urlEncoded], "text=a&subtitle=+++", "subtitle"),
                ("POST", "/messages?icon=abcde", [("Content-Type", "text/plain")], "a", "icon"),
                ("POST", "/messages", json, #"{"text": "a", "icon": "🇫🇷🇩🇪🇯🇵🇧🇷🇮🇹"}"#, "icon"),
                ("POST", "/messages", json, #"{"text": "a", "icon": "  "}"#, "icon"),
                ("PATCH", "/messages/1", json, #"{"subtitle": " "}"#, "subtitle"),
                ("PATCH", "/messages/2", [FormBody.urlEncoded], "icon=abcde", "icon"),
            ]
            for (method, path, headers, body, field) in cases {
                let refused = try live.request(method, path, headers: headers, body: body)
                expectError(refused, status: 422, code: "invalid_field", field: field)
            }
            try live.expectUnchanged(since: before)
            // 256 characters after trimming are enough.
            let fits = " " + String(repeating: "s", count: 256) + " "
            #expect(try live.post("/messages", json: #"{"text": "a", "subtitle": "\#(fits)"}"#).status == 202)
        }
    }

    /// On the iPhone 15 Pro the pill is measured with Inter at 13 and 12 points: `textWidth` is
    /// the font's width, w = round(max(200, min(353, T + 40))) with T the wider text plus 21 for
    /// the icon, the group centred in it; nothing is truncated. A long title fills L − 40 and is.
    @Test func aPillMeasuredWithInter() throws {
        let metrics = try TextFont().metrics()
        try withLiveServer(configure: { $0.device = "iphone-15-pro" }) { live in
            let title = "Photo sent to Anna"
            let subtitle = "3 photos, 2.4 MB"
            #expect(
                try live.post("/messages", json: #"{"text": "\#(title)", "subtitle": "\#(subtitle)", "icon": "📷"}"#)
                    .status
                    == 202)
            try live.advance(0.25)
            let overlay = try live.overlay()
            let titleWidth = metrics.width(of: title, as: .title)
            let subtitleWidth = metrics.width(of: subtitle, as: .subtitle)
            #expect(titleWidth > 80 && titleWidth < 160)
            #expect(overlay["label"]?["textWidth"]?.number == titleWidth)
            #expect(overlay["subtitle"]?["textWidth"]?.number == subtitleWidth)
            let text = max(titleWidth, subtitleWidth) + 21
            let width = max(200, min(353, text + 40)).rounded()
            let x = max(20, (393 - width) / 2).rounded()
            #expect(overlay["pill"]?["frame"]?.rect == [x, 59, width, 50])
            let group = min(text, width - 40)
            let start = x + (width - group) / 2
            #expect(overlay["accessory"]?["kind"]?.string == "icon")
            #expect(overlay["accessory"]?["icon"]?.string == "📷")
            #expect(overlay["accessory"]?["frame"]?.rect == [start, 76, 16, 16])
            // The label is exactly as wide as the wider text: g − 21 = min(that width, w − 61).
            let labelWidth = min(max(titleWidth, subtitleWidth), width - 61)
            #expect(labelWidth == titleWidth)
            #expect(overlay["label"]?["frame"]?.rect == [start + 21, 68.5, labelWidth, 16])
            #expect(overlay["subtitle"]?["frame"]?.rect == [start + 21, 85.5, labelWidth, 14])
            #expect(overlay["label"]?["truncated"]?.bool == false)
            #expect(overlay["subtitle"]?["truncated"]?.bool == false)

            let long = String(repeating: "Uploading the holiday photos ", count: 3)
            #expect(
                try live.request("PATCH", "/messages/1", headers: [("Content-Type", "text/plain")], body: long).status
                    == 200)
            let cut = try live.overlay()
            let longWidth = metrics.width(of: long.trimmingSpaces(), as: .title)
            #expect(cut["label"]?["textWidth"]?.number == longWidth)
            #expect(cut["pill"]?["frame"]?.rect == [20, 59, 353, 50])
            #expect(cut["label"]?["frame"]?.rect == [61, 68.5, 292, 16])
            #expect(cut["label"]?["truncated"]?.bool == true)
        }
    }

    /// In `statusBar` the subtitle is null (the message keeps it) and the accessory sits in the
    /// left inset; a `sending` message's accessory is the spinner, without its icon.
    @Test func theStatusBarAndTheSpinner() throws {
        try withLiveServer(configure: { $0.device = "iphone-15-pro" }) { live in
            #expect(try live.request("PUT", "/presentation", body: "statusBar").status == 200)
            let body = #"{"text": "Sending", "kind": "sending", "subtitle": "to Anna", "icon": "📷"}"#
            #expect(try live.post("/messages", json: body).status == 202)
            try live.advance(0.25)
            let overlay = try live.overlay()
            #expect(overlay["message"]?["subtitle"]?.string == "to Anna")
            #expect(overlay["subtitle"]?.isNull == true)
            #expect(overlay["label"]?["frame"]?.rect == [30, 0, 333, 54])
            let spinner = try JSONParser.parse(
                Array(
                    #"{"kind": "activity", "icon": null, "frame": {"x": 9, "y": 19, "width": 16, "height": 16}}"#.utf8))
            #expect(overlay["accessory"] == spinner)
            #expect(try live.request("PATCH", "/messages/1", body: "kind=info").status == 200)
            #expect(try live.overlay()["accessory"]?["kind"]?.string == "icon")
            #expect(try live.overlay()["accessory"]?["icon"]?.string == "📷")
            #expect(
                try live.request(
                    "PATCH", "/messages/1", headers: [("Content-Type", "application/json")], body: #"{"icon": null}"#
                ).status == 200)
            #expect(try live.overlay()["accessory"]?.isNull == true)
        }
    }
}
