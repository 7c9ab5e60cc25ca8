import Testing

@testable import OverlayService

/// The `GET /overlay` example of MODEL §5, reproduced through HTTP with the manual clock, followed
/// by the two members the status bar adds (§8, docs/STATUSBAR.md): the bar at rest, not holding.
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

    /// What the status bar adds after the members of §5, in this order.
    static let statusBarMembers = """
          "statusBar": {"style": "lightContent", "hidden": false, "alpha": 1, "offset": 0,
            "frame": {"x": 0, "y": 0, "width": 768, "height": 20}, "animation": null,
            "styleFrom": "application", "hiddenFrom": "application"},
          "held": false
        """

    /// The example with the status bar's members after §5's.
    static var fullBody: String { specBody.dropLast() + ",\n" + statusBarMembers + "\n}" }

    /// Two messages posted and deleted (versions 1–4), the clock moved to 1.0, "Sending…" posted
    /// (5) and two more queued (6, 7), the clock moved to 1.125: halfway through the show.
    @Test func overlayExample() throws {
        let live = try LiveServer()
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
        let expected = try JSONParser.parse(Array(Self.fullBody.utf8))
        let actual = response.json
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
        #expect(orderedKeys(response.body) == orderedKeys(Array(Self.fullBody.utf8)))
        #expect(
            response.text.hasPrefix(#"{"version":7,"now":1.125,"phase":"showing","orientation":"portrait","#))
        #expect(response.text.contains(#""contentOffset":-10,"alpha":1,"#))
        #expect(response.text.contains(#""start":1,"duration":0.25},"statusBar":{"style":"lightContent","#))
        #expect(response.text.hasSuffix(#""hiddenFrom":"application"},"held":false}"#))
    }
}
