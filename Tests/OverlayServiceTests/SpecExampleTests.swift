import ServiceTestSupport
import Testing

@testable import OverlayService

/// The `GET /overlay` example of MODEL §5, reproduced through HTTP with the manual clock, with the
/// members the status bar adds (§8, docs/STATUSBAR.md: the bar at rest, not holding), those of
/// the presentations, the count of scheduled messages and the reader's side (the message's click,
/// actions and taps, the announcement made when "Sending…" was posted, version 5; §14)
/// (docs/MODEL.md).
@Suite("MODEL §5 example")
struct SpecExampleTests {
    /// The example body exactly as the spec prints it.
    static let specBody = """
        {
          "version": 7, "now": 1.125, "phase": "showing",
          "orientation": "portrait", "rotation": 0, "device": "ipad",
          "frame": {"x": 0, "y": 0, "width": 768, "height": 20},
          "contentOffset": -10, "alpha": 1,
          "message": {"id": 3, "kind": "sending", "text": "Sending…", "progress": null, "state": "showing"},
          "label": {"text": "Sending…", "frame": {"x": 30, "y": -10, "width": 708, "height": 20}},
          "style": {"background": "#1C1C1E", "foreground": "#FFFFFF"},
          "activity": true, "progressBar": null, "queued": 2,
          "animation": {"property": "contentOffset", "from": -20, "to": 0, "start": 1.0, "duration": 0.25}
        }
        """

    /// The example as overlayd answers it: §5's members, with what the status bar (§8) and the
    /// presentations (§10, docs/MODEL.md) add, in the order it writes them. On the iPad `auto` is
    /// `statusBar`; the spinner of a `sending` message sits in the left inset, at (30 − 21,
    /// −10 + (20 − 16)/2); the label's width is the test server's measure of "Sending…".
    static func fullBody(textWidth: Double) -> String {
        """
        {
          "version": 7, "now": 1.125, "phase": "showing",
          "orientation": "portrait", "rotation": 0, "device": "ipad", "presentation": "statusBar",
          "frame": {"x": 0, "y": 0, "width": 768, "height": 20},
          "contentOffset": -10, "alpha": 1,
          "message": {"id": 3, "kind": "sending", "text": "Sending…", "subtitle": null, "icon": null,
            "progress": null, "state": "showing", "click": null, "actions": [], "accessibilityLabel": null,
            "taps": []},
          "announcement": "Sending: Sending…", "announcementVersion": 5,
          "label": {"text": "Sending…", "frame": {"x": 30, "y": -10, "width": 708, "height": 20},
            "textWidth": \(textWidth), "truncated": false},
          "subtitle": null,
          "outgoing": null,
          "accessory": {"kind": "activity", "icon": null, "frame": {"x": 9, "y": -8, "width": 16, "height": 16}},
          "pill": null,
          "style": {"background": "#1C1C1E", "foreground": "#FFFFFF"},
          "activity": true, "progressBar": null, "queued": 2, "scheduled": 0,
          "animation": {"property": "contentOffset", "from": -20, "to": 0, "start": 1.0, "duration": 0.25},
          "statusBar": {"style": "lightContent", "hidden": false, "alpha": 1, "offset": 0,
            "frame": {"x": 0, "y": 0, "width": 768, "height": 20}, "animation": null,
            "styleFrom": "application", "hiddenFrom": "application"},
          "held": false,
          "touch": null
        }
        """
    }

    /// Whether every member of `part` is in `whole` with the same value, objects compared member by
    /// member: what §5 prints is all there, unchanged, whatever later sections add.
    static func contains(_ whole: JSONValue, _ part: JSONValue) -> Bool {
        guard case .object(let parts) = part else { return whole == part }
        guard case .object(let wholes) = whole else { return false }
        return parts.allSatisfy { name, value in wholes[name].map { contains($0, value) } ?? false }
    }

    /// Two messages posted and deleted (versions 1–4), the clock moved to 1.0, "Sending…" posted
    /// (5) and two more queued (6, 7), the clock moved to 1.125: halfway through the show.
    @Test func overlayExample() throws {
        try withLiveServer { live in
            let a = try live.request("POST", "/messages", body: "a")
            #expect(a.status == 202)
            #expect(a.json["id"]?.int == 1)
            #expect(try live.request("DELETE", "/messages/1").status == 200)
            let b = try live.request("POST", "/messages", body: "b")
            #expect(b.json["id"]?.int == 2)
            #expect(try live.request("DELETE", "/messages/2").status == 200)
            #expect(try live.advance(1.0).json["now"]?.number == 1)
            let sending = try live.post("/messages", json: #"{"kind": "sending", "text": "Sending…"}"#)
            #expect(sending.status == 202)
            #expect(sending.json["id"]?.int == 3)
            #expect(try live.request("POST", "/messages?kind=sent", body: "Sent").status == 202)
            #expect(try live.request("POST", "/messages", body: "Next").status == 202)
            #expect(try live.advance(0.125).json["now"]?.number == 1.125)

            let response = try live.get("/overlay")
            #expect(response.status == 200)
            #expect(response.header("ETag") == #"W/"7""#)
            let actual = response.json
            // "Sending…" in Inter Regular at 13 points, as uharfbuzz measured it on the same font file
            // (Tests/TextMeasureTests/Fixtures): 13176 units × 13 ÷ 2816.
            let fullBody = Self.fullBody(textWidth: 13176.0 * 13 / 2816)
            let expected = try JSONParser.parse(Array(fullBody.utf8))
            #expect(Self.contains(expected, try JSONParser.parse(Array(Self.specBody.utf8))))
            // Field by field first, so that a difference names its field.
            guard case .object(let expectedMembers) = expected, case .object(let actualMembers) = actual else {
                Issue.record("not an object: \(response.text)")
                return
            }
            for (name, value) in expectedMembers.sorted(by: { $0.key < $1.key }) {
                #expect(actualMembers[name] == value, "\(name)")
            }
            #expect(Set(actualMembers.keys) == Set(expectedMembers.keys))
            #expect(actual == expected)
            // And in the spec's order, nested objects included.
            #expect(orderedKeys(response.body) == orderedKeys(Array(fullBody.utf8)))
            #expect(
                response.text.hasPrefix(#"{"version":7,"now":1.125,"phase":"showing","orientation":"portrait","#))
            #expect(response.text.contains(#""contentOffset":-10,"alpha":1,"#))
            #expect(response.text.contains(#""start":1,"duration":0.25},"statusBar":{"style":"lightContent","#))
            #expect(response.text.hasSuffix(#""hiddenFrom":"application"},"held":false,"touch":null}"#))
        }
    }
}
