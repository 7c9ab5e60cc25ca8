import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// `GET /statusbar`, `PUT /statusbar` and `PUT /statusbar/controllers` through real HTTP on
/// loopback (docs/STATUSBAR.md): every status they answer, JSON and query bodies, channels and
/// tokens, and bad input that changes nothing.
@Suite("Status bar API")
struct StatusBarAPITests {
    static let json = [("Content-Type", "application/json")]

    /// The tab-bar chain of docs/STATUSBAR.md: a custom root that forwards to a tab bar controller, whose
    /// visible tab wants light content; the tab bar forwards hidden to the same tab.
    static let tabBarChain = """
        {"root": "main", "controllers": [
          {"name": "main", "childForStatusBarStyle": "tabs", "childForStatusBarHidden": "tabs"},
          {"name": "tabs", "childForStatusBarStyle": "feed", "childForStatusBarHidden": "feed"},
          {"name": "feed", "preferredStatusBarStyle": "lightContent"}]}
        """

    /// A server whose status bar is decided by controllers.
    static func controllersServer(_ configure: (inout ServiceConfiguration) -> Void = { _ in }) throws -> LiveServer {
        try LiveServer {
            $0.engine.statusBar.appearance = .controllers
            configure(&$0)
        }
    }

    /// A new channel's bar: at rest, decided by the application, no hierarchy; reading a channel
    /// that does not exist shows a new one's without creating it.
    @Test func getStatusBar() throws {
        try withLiveServer { live in
            let response = try live.get("/statusbar")
            #expect(response.status == 200)
            #expect(response.header("Content-Type") == "application/json; charset=utf-8")
            let expected = try JSONParser.parse(
                Array(
                    """
                    {"version": 0, "now": 0, "appearance": "application",
                     "statusBar": {"style": "lightContent", "hidden": false, "alpha": 1, "offset": 0,
                       "frame": {"x": 0, "y": 0, "width": 768, "height": 20}, "animation": null,
                       "styleFrom": "application", "hiddenFrom": "application"},
                     "updateAnimation": "fade", "hierarchy": null}
                    """.utf8))
            #expect(response.json == expected)
            #expect(orderedKeys(response.body).prefix(4) == ["version", "now", "appearance", "statusBar"])
            #expect(try live.get("/channels/elsewhere/statusbar").json["statusBar"] == expected["statusBar"])
            #expect(try live.get("/channels/elsewhere").status == 404)
        }
    }

    /// A JSON PUT hides the bar with a fade and answers 200 with the overlay: the shown message
    /// hides beside the bar and is queued again; the bar's hide is a version, its end another.
    @Test func putJSON() throws {
        try withLiveServer { live in
            #expect(try live.post("/messages", json: #"{"text": "Hello"}"#).status == 202)
            try live.advance(1)
            let before = try #require(live.overlay()["version"]?.int)
            let response = try live.request(
                "PUT", "/statusbar", headers: Self.json, body: #"{"hidden": true, "animation": "fade"}"#)
            #expect(response.status == 200)
            #expect(response.header("ETag") == "W/\"\(before + 1)\"")
            let overlay = response.json
            #expect(overlay["version"]?.int == before + 1)
            #expect(overlay["held"]?.bool == true)
            #expect(overlay["phase"]?.string == "hiding")
            #expect(overlay["message"]?["state"]?.string == "queued")
            #expect(overlay["statusBar"]?["hidden"]?.bool == true)
            #expect(overlay["statusBar"]?["animation"]?["property"]?.string == "alpha")
            try live.advance(0.125)
            let middle = try live.overlay()
            #expect(middle["alpha"]?.number == 0.5)
            #expect(middle["statusBar"]?["alpha"]?.number == 0.5)
            #expect(middle["version"]?.int == before + 1)
            try live.advance(0.125)
            let hidden = try live.overlay()
            #expect(hidden["phase"]?.string == "hidden")
            #expect(hidden["version"]?.int == before + 3)
            #expect(try live.get("/messages").json["messages"]?[0]?["state"]?.string == "queued")
            // The same PUT again changes nothing: the same version.
            let again = try live.request("PUT", "/statusbar", body: #"{"hidden": true}"#)
            #expect(again.status == 200)
            #expect(again.json["version"]?.int == before + 3)
        }
    }

    /// Query parameters (`curl -X PUT 'host/statusbar?hidden=true&animation=slide'`), and a JSON
    /// body without a content type (what `curl -d` sends).
    @Test func putQueryParameters() throws {
        try withLiveServer { live in
            let hidden = try live.request("PUT", "/statusbar?hidden=true&animation=slide")
            #expect(hidden.status == 200)
            #expect(hidden.json["statusBar"]?["hidden"]?.bool == true)
            #expect(hidden.json["statusBar"]?["animation"]?["property"]?.string == "offset")
            #expect(hidden.json["held"]?.bool == true)
            let styled = try live.request("PUT", "/statusbar?style=darkContent")
            #expect(styled.json["statusBar"]?["style"]?.string == "darkContent")
            let form = try live.request(
                "PUT", "/statusbar", headers: [FormBody.urlEncoded],
                body: #"{"hidden": false}"#)
            #expect(form.status == 200)
            #expect(form.json["held"]?.bool == false)
            #expect(try live.get("/statusbar").json["updateAnimation"]?.string == "slide")
        }
    }

    /// The neutral kinds take the bar's colours; a style change restyles the shown message at once.
    @Test func styleChangesColours() throws {
        try withLiveServer { live in
            #expect(try live.post("/messages", json: #"{"text": "Sending…", "kind": "sending"}"#).status == 202)
            #expect(try live.overlay()["style"]?["background"]?.string == "#1C1C1E")
            let dark = try live.request("PUT", "/statusbar", body: #"{"style": "default"}"#)
            #expect(dark.json["style"]?["background"]?.string == "#F2F2F7")
            #expect(dark.json["style"]?["foreground"]?.string == "#000000")
        }
    }

    /// Bad input: each is refused with its status and field, and changes nothing (the version and
    /// the bar stay as they were).
    @Test(arguments: [
        ("/statusbar", #"{"hidden": "yes"}"#, 400, "hidden"),
        ("/statusbar", #"{"style": "purple"}"#, 422, "style"),
        ("/statusbar", #"{"animation": "spin"}"#, 422, "animation"),
        ("/statusbar?hidden=maybe", nil, 400, "hidden"),
        ("/statusbar?hidden=", nil, 400, "hidden"),
        ("/statusbar?style=lightContent&hidden=", #"{"animation": "fade"}"#, 400, "hidden"),
        ("/statusbar", #"{"colour": "red"}"#, 400, "colour"),
        ("/statusbar?hidden=true", #"{"hidden": true}"#, 400, "hidden"),
        ("/statusbar", #"{}"#, 422, nil),
        ("/statusbar", nil, 422, nil),
        ("/statusbar", "hidden", 400, nil),
        ("/statusbar", #"{"hidden": tru"#, 400, nil),
        ("/statusbar", #"["hidden"]"#, 400, nil),
    ])
    func badSettings(path: String, body: String?, status: Int, field: String?) throws {
        try withLiveServer { live in
            let response = try live.request("PUT", path, body: body)
            #expect(response.status == status, "\(response.text)")
            #expect(response.json["error"]?["field"]?.string == field)
            #expect(try live.get("/statusbar").json["version"]?.int == 0)
            #expect(try live.overlay()["statusBar"]?["hidden"]?.bool == false)
        }
    }

    /// A body of another content type is 415.
    @Test func unsupportedMediaType() throws {
        try withLiveServer { live in
            let response = try live.request("PUT", "/statusbar", headers: [("Content-Type", "image/png")], body: "x")
            #expect(response.status == 415)
            #expect(response.errorCode == "unsupported_media_type")
        }
    }

    /// Under `/channels/{name}/`: the channel's own bar; the default channel's stays as it was.
    @Test func underChannels() throws {
        try withLiveServer { live in
            let hidden = try live.request("PUT", "/channels/video/statusbar?hidden=true&animation=none")
            #expect(hidden.status == 200)
            #expect(hidden.json["held"]?.bool == true)
            #expect(try live.get("/channels/video/statusbar").json["statusBar"]?["hidden"]?.bool == true)
            #expect(try live.get("/channels/video/overlay").json["held"]?.bool == true)
            #expect(try live.get("/statusbar").json["statusBar"]?["hidden"]?.bool == false)
            #expect(try live.post("/channels/video/messages", json: #"{"text": "held"}"#).status == 202)
            #expect(try live.get("/channels/video/overlay").json["phase"]?.string == "hidden")
            #expect(try live.get("/channels/video/overlay").json["queued"]?.int == 1)
            #expect(try live.get("/channels/bad!/statusbar").status == 400)
        }
    }

    /// With a write token the PUTs need it (401 without); reads stay open.
    @Test func writeToken() throws {
        try withLiveServer(configure: { $0.token = "write-token-123" }) { live in
            let refused = try live.request("PUT", "/statusbar?hidden=true")
            #expect(refused.status == 401)
            #expect(refused.header("WWW-Authenticate")?.hasPrefix("Bearer") == true)
            #expect(try live.get("/statusbar").json["statusBar"]?["hidden"]?.bool == false)
            let bearer = [("Authorization", "Bearer write-token-123")]
            #expect(try live.request("PUT", "/statusbar?hidden=true", headers: bearer).status == 200)
            #expect(try live.get("/statusbar").status == 200)
            let controllers = try live.request("PUT", "/statusbar/controllers", body: Self.tabBarChain)
            #expect(controllers.status == 401)
        }
    }

    /// With a read token, `GET /statusbar` needs it too.
    @Test func readToken() throws {
        try withLiveServer(configure: { $0.readToken = "read-token-456" }) { live in
            #expect(try live.get("/statusbar").status == 401)
            let read = try live.request("GET", "/statusbar", headers: [("Authorization", "Bearer read-token-456")])
            #expect(read.status == 200)
        }
    }

    /// Wrong methods are 405 with `Allow`; OPTIONS lists the methods.
    @Test func methods() throws {
        try withLiveServer { live in
            let delete = try live.request("DELETE", "/statusbar")
            #expect(delete.status == 405)
            #expect(delete.header("Allow") == "GET, PUT, HEAD, OPTIONS")
            let get = try live.get("/statusbar/controllers")
            #expect(get.status == 405)
            #expect(get.header("Allow") == "PUT, OPTIONS")
            #expect(try live.request("OPTIONS", "/channels/a/statusbar/controllers").status == 204)
            #expect(try live.request("HEAD", "/statusbar").status == 200)
        }
    }

    /// With `controllers` appearance a direct setting is 409 `controller_based_appearance` naming
    /// the setting and the mode, creating nothing; with `application` appearance a hierarchy is.
    @Test func controllerBasedAppearance() throws {
        try withLiveServer(started: Self.controllersServer()) { controllers in
            for (query, field) in [
                ("hidden=true", "hidden"), ("style=darkContent", "style"), ("animation=slide", "animation"),
            ] {
                let refused = try controllers.request("PUT", "/channels/splash/statusbar?\(query)")
                #expect(refused.status == 409)
                #expect(refused.errorCode == "controller_based_appearance")
                #expect(refused.json["error"]?["field"]?.string == field)
                #expect(
                    refused.json["error"]?["message"]?.string?.contains("statusBar.appearance is controllers") == true)
            }
            #expect(try controllers.get("/channels/splash").status == 404)

            try withLiveServer { application in
                let refused = try application.request("PUT", "/statusbar/controllers", body: Self.tabBarChain)
                #expect(refused.status == 409)
                #expect(refused.errorCode == "controller_based_appearance")
                #expect(refused.json["error"]?["field"]?.string == "controllers")
                #expect(try application.get("/statusbar").json["hierarchy"] == .null)
            }
        }
    }

    /// The tab-bar chain decides the style (from `feed`); reading it back lists every field, and
    /// sending that back changes nothing. A hierarchy whose deciding controller hides the bar holds
    /// the overlay with that controller's animation.
    @Test func controllersDecide() throws {
        try withLiveServer(started: Self.controllersServer()) { live in
            let put = try live.request("PUT", "/statusbar/controllers", headers: Self.json, body: Self.tabBarChain)
            #expect(put.status == 200)
            #expect(put.json["statusBar"]?["styleFrom"]?.string == "feed")
            #expect(put.json["statusBar"]?["hiddenFrom"]?.string == "feed")
            let state = try live.get("/statusbar").json
            #expect(state["appearance"]?.string == "controllers")
            #expect(state["hierarchy"]?["root"]?.string == "main")
            let feed = try #require(state["hierarchy"]?["controllers"]?[2])
            #expect(feed["preferredStatusBarStyle"]?.string == "lightContent")
            #expect(feed["prefersStatusBarHidden"]?.bool == false)
            #expect(feed["preferredStatusBarUpdateAnimation"]?.string == "fade")
            #expect(feed["presented"] == .null)
            #expect(feed["fullScreen"]?.bool == true)
            let version = try #require(state["version"]?.int)
            var roundTrip = JSONWriter()
            roundTrip.value(try #require(state["hierarchy"]))
            let again = try live.request(
                "PUT", "/statusbar/controllers", body: String(decoding: roundTrip.bytes, as: UTF8.self))
            #expect(again.status == 200)
            #expect(again.json["version"]?.int == version)

            #expect(try live.post("/messages", json: #"{"text": "Playing"}"#).status == 202)
            try live.advance(1)
            let video = """
                {"root": "main", "controllers": [
                  {"name": "main", "presented": "player"},
                  {"name": "player", "prefersStatusBarHidden": true, "preferredStatusBarUpdateAnimation": "slide"}]}
                """
            let hidden = try live.request("PUT", "/statusbar/controllers", body: video)
            #expect(hidden.status == 200)
            #expect(hidden.json["held"]?.bool == true)
            #expect(hidden.json["statusBar"]?["hiddenFrom"]?.string == "player")
            #expect(hidden.json["animation"]?["property"]?.string == "contentOffset")
            #expect(try live.get("/statusbar").json["updateAnimation"]?.string == "slide")
        }
    }

    /// Every bad hierarchy is 422 naming the field (400 for a body that is not an object, or an
    /// unknown member), and changes nothing: neither the version nor the hierarchy.
    @Test(arguments: [
        (#"{"controllers": [{"name": "a"}]}"#, 422, "root"),
        (#"{"root": 7, "controllers": [{"name": "a"}]}"#, 422, "root"),
        (#"{"root": "b", "controllers": [{"name": "a"}]}"#, 422, "root"),
        (#"{"root": "a"}"#, 422, "controllers"),
        (#"{"root": "a", "controllers": {}}"#, 422, "controllers"),
        (#"{"root": "a", "controllers": []}"#, 422, "controllers"),
        (#"{"root": "a", "controllers": [7]}"#, 422, "controllers[0]"),
        (#"{"root": "a", "controllers": [{}]}"#, 422, "controllers[0].name"),
        (#"{"root": "a", "controllers": [{"name": "a b"}]}"#, 422, "controllers[0].name"),
        (#"{"root": "application", "controllers": [{"name": "application"}]}"#, 422, "controllers[0].name"),
        (#"{"root": "a", "controllers": [{"name": "a"}, {"name": "a"}]}"#, 422, "controllers[1].name"),
        (#"{"root": "a", "controllers": [{"name": "a", "fullScreen": "yes"}]}"#, 422, "controllers[0].fullScreen"),
        (
            #"{"root": "a", "controllers": [{"name": "a", "preferredStatusBarStyle": "blue"}]}"#, 422,
            "controllers[0].preferredStatusBarStyle"
        ),
        (
            #"{"root": "a", "controllers": [{"name": "a", "childForStatusBarStyle": "ghost"}]}"#, 422,
            "controllers[0].childForStatusBarStyle"
        ),
        (
            #"{"root": "a", "controllers": [{"name": "a", "presented": "c"}, {"name": "b", "presented": "c"}, {"name": "c"}]}"#,
            422, "controllers[1].presented"
        ),
        (
            #"{"root": "a", "controllers": [{"name": "a", "childForStatusBarHidden": "b"}, {"name": "b", "presented": "a"}]}"#,
            422, "controllers[1].presented"
        ),
        (
            #"{"root": "a", "controllers": [{"name": "a"}, {"name": "b", "childForStatusBarStyle": "c"}, {"name": "c", "childForStatusBarStyle": "b"}]}"#,
            422, "controllers[2].childForStatusBarStyle"
        ),
        (#"{"root": "a", "controllers": [{"name": "a", "colour": "red"}]}"#, 400, "controllers[0].colour"),
        (#"{"root": "a", "controllers": [{"name": "a"}], "appearance": "x"}"#, 400, "appearance"),
        (#"["a"]"#, 400, nil),
        ("a", 400, nil),
    ])
    func badHierarchies(body: String, status: Int, field: String?) throws {
        try withLiveServer(started: Self.controllersServer()) { live in
            let good = #"{"root": "a", "controllers": [{"name": "a", "preferredStatusBarStyle": "darkContent"}]}"#
            #expect(try live.request("PUT", "/statusbar/controllers", body: good).status == 200)
            let before = try live.get("/statusbar").json
            let response = try live.request("PUT", "/statusbar/controllers", body: body)
            #expect(response.status == status, "\(response.text)")
            #expect(response.json["error"]?["field"]?.string == field, "\(response.text)")
            let after = try live.get("/statusbar").json
            #expect(after["version"] == before["version"])
            #expect(after["hierarchy"] == before["hierarchy"])
        }
    }

    /// Over 64 controllers is 422 naming `controllers`; exactly 64 is accepted.
    @Test func controllerLimit() throws {
        try withLiveServer(started: Self.controllersServer()) { live in
            func body(_ count: Int) -> String {
                let controllers = (0..<count).map { #"{"name": "c\#($0)"}"# }.joined(separator: ",")
                return #"{"root": "c0", "controllers": [\#(controllers)]}"#
            }
            let over = try live.request("PUT", "/statusbar/controllers", body: body(65))
            #expect(over.status == 422)
            #expect(over.json["error"]?["field"]?.string == "controllers")
            #expect(try live.request("PUT", "/statusbar/controllers", body: body(64)).status == 200)
            #expect(try live.get("/statusbar").json["hierarchy"]?["controllers"]?.array?.count == 64)
        }
    }
}
