import ServiceTestSupport
import Testing

@testable import OverlayService

/// The walk-through of `scripts/statusbar-example` (and of docs/STATUSBAR.md, "A walk-through with
/// curl"), call for call, with the same numbers checked.
@Suite("Status bar walk-through")
struct StatusBarExampleTests {
    /// Expects each dotted path of the overlay to hold the JSON value given.
    static func expect(
        _ overlay: JSONValue, _ expectations: [String: String], sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        for (path, expected) in expectations.sorted(by: { $0.key < $1.key }) {
            var value: JSONValue? = overlay
            for key in path.split(separator: ".") { value = value?[String(key)] }
            #expect(
                value == (try JSONParser.parse(Array(expected.utf8))), "\(path)", sourceLocation: sourceLocation)
        }
    }

    /// The splash-screen launch of docs/STATUSBAR.md.
    @Test func splashScreenLaunch() throws {
        try withLiveServer(configure: { $0.engine.statusBar.hiddenAtLaunch = true }) { live in
            #expect(try live.request("POST", "/messages?kind=info", body: "Welcome back").status == 202)
            try Self.expect(
                live.overlay(),
                [
                    "held": "true", "phase": #""hidden""#, "queued": "1", "statusBar.hidden": "true",
                    "statusBar.alpha": "0", "version": "1",
                ])
            try live.advance(1)
            #expect(
                try live.request("PUT", "/statusbar", body: #"{"hidden": false, "animation": "fade"}"#).status == 200)
            try Self.expect(
                live.overlay(),
                [
                    "held": "false", "phase": #""showing""#, "statusBar.alpha": "0", "contentOffset": "-20",
                    "message.id": "1", "statusBar.animation.property": #""alpha""#, "animation.start": "1",
                    "version": "2",
                ])
            try live.advance(0.125)
            try Self.expect(
                live.overlay(),
                ["statusBar.alpha": "0.5", "contentOffset": "-10", "label.frame.y": "-10", "version": "2"])
            try live.advance(0.125)
            try Self.expect(
                live.overlay(),
                [
                    "phase": #""visible""#, "statusBar.alpha": "1", "statusBar.animation": "null", "contentOffset": "0",
                    "version": "4",
                ])
            try live.advance(0.75)
            #expect(try live.request("PUT", "/statusbar?hidden=true&animation=slide").status == 200)
            try live.advance(0.125)
            try Self.expect(
                live.overlay(),
                [
                    "held": "true", "phase": #""hiding""#, "contentOffset": "-10", "statusBar.offset": "-10",
                    "statusBar.alpha": "1", "message.state": #""queued""#, "queued": "1", "version": "5",
                ])
            try live.advance(0.125)
            try Self.expect(
                live.overlay(),
                [
                    "phase": #""hidden""#, "statusBar.offset": "-20", "statusBar.alpha": "0", "queued": "1",
                    "message": "null", "version": "7",
                ])
            #expect(try live.request("PUT", "/statusbar?hidden=false").status == 200)
            try Self.expect(
                live.overlay(),
                [
                    "phase": #""showing""#, "message.id": "1", "message.state": #""showing""#, "contentOffset": "-20",
                    "statusBar.offset": "-20", "statusBar.animation.property": #""offset""#, "version": "8",
                ])
        }
    }

    /// The tab-bar chain of docs/STATUSBAR.md, then a full-screen player presented over it.
    @Test func tabBarChain() throws {
        try withLiveServer(configure: { $0.engine.statusBar.appearance = .controllers }) { live in
            let tabs = """
                {"root": "main", "controllers": [
                  {"name": "main", "childForStatusBarStyle": "tabs", "childForStatusBarHidden": "tabs"},
                  {"name": "tabs", "childForStatusBarStyle": "feed", "childForStatusBarHidden": "feed"},
                  {"name": "feed", "preferredStatusBarStyle": "darkContent"}]}
                """
            #expect(try live.request("PUT", "/statusbar/controllers", body: tabs).status == 200)
            #expect(try live.request("POST", "/messages?kind=sending", body: "Sending…").status == 202)
            try live.advance(1)
            try Self.expect(
                live.overlay(),
                [
                    "statusBar.style": #""darkContent""#, "statusBar.styleFrom": #""feed""#,
                    "statusBar.hiddenFrom": #""feed""#, "style.background": ##""#F2F2F7""##,
                    "style.foreground": ##""#000000""##, "phase": #""visible""#,
                ])
            let refused = try live.request("PUT", "/statusbar?hidden=true")
            #expect(refused.status == 409)
            #expect(refused.errorCode == "controller_based_appearance")
            let player = """
                {"root": "main", "controllers": [
                  {"name": "main", "childForStatusBarStyle": "tabs", "childForStatusBarHidden": "tabs"},
                  {"name": "tabs", "childForStatusBarStyle": "feed", "childForStatusBarHidden": "feed", "presented": "player"},
                  {"name": "feed", "preferredStatusBarStyle": "darkContent"},
                  {"name": "player", "prefersStatusBarHidden": true, "preferredStatusBarUpdateAnimation": "slide"}]}
                """
            #expect(try live.request("PUT", "/statusbar/controllers", body: player).status == 200)
            try live.advance(0.125)
            try Self.expect(
                live.overlay(),
                [
                    "held": "true", "statusBar.hiddenFrom": #""player""#, "statusBar.styleFrom": #""player""#,
                    "statusBar.style": #""default""#, "statusBar.offset": "-10", "contentOffset": "-10",
                    "message.state": #""queued""#,
                ])
        }
    }
}
