import OverlayEngine
import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// §10's presentations through real HTTP: `PUT /presentation` in every spelling, the window of
/// every built-in device in each presentation, the bounce, the pill measured with Inter, and
/// a presentation that survives a restart.
@Suite("Presentations through the API (§10)")
struct PresentationAPITests {
    /// A built-in device: W × H, and in portrait and in landscapeRight s' with Hw of statusBar,
    /// fullWidth and pill, and the x of a 200-point pill; `auto` is `pill` with a cutout.
    struct Screen: Sendable {
        var name: String
        var width: Double
        var height: Double
        var cutout: Bool
        /// s', [Hw of statusBar, fullWidth, pill], the minimum pill's x: portrait, then landscape.
        var portrait: (safeArea: Double, heights: [Double], pillX: Double)
        var landscape: (safeArea: Double, heights: [Double], pillX: Double)
    }

    static let screens: [Screen] = [
        Screen(
            name: "iphone", width: 320, height: 480, cutout: false, portrait: (20, [20, 20 + 44, 20 + 3 + 50], 60),
            landscape: (20, [20, 20 + 44, 20 + 3 + 50], 140)),
        Screen(
            name: "iphone-se", width: 375, height: 667, cutout: false,
            portrait: (20, [20, 20 + 44, 20 + 3 + 50], 88), landscape: (20, [20, 20 + 44, 20 + 3 + 50], 234)),
        Screen(
            name: "iphone-notch", width: 375, height: 812, cutout: true,
            portrait: (44, [44, 44 + 44, 44 - 7 + 50], 88), landscape: (0, [44, 0 + 44, 0 + 3 + 50], 306)),
        Screen(
            name: "iphone-14", width: 390, height: 844, cutout: true, portrait: (47, [47, 47 + 44, 47 - 7 + 50], 95),
            landscape: (0, [47, 0 + 44, 0 + 3 + 50], 322)),
        Screen(
            name: "iphone-15-pro", width: 393, height: 852, cutout: true,
            portrait: (59, [54, 59 + 38.66, 59 + 0 + 50], 97), landscape: (0, [54, 0 + 44, 0 + 3 + 50], 326)),
        Screen(
            name: "iphone-16-pro", width: 402, height: 874, cutout: true,
            portrait: (62, [54, 62 + 38.66, 62 + 0 + 50], 101), landscape: (0, [54, 0 + 44, 0 + 3 + 50], 337)),
        Screen(
            name: "ipad", width: 768, height: 1024, cutout: false, portrait: (20, [20, 20 + 44, 20 + 3 + 50], 284),
            landscape: (20, [20, 20 + 44, 20 + 3 + 50], 412)),
        Screen(
            name: "ipad-pro-11", width: 834, height: 1194, cutout: false,
            portrait: (24, [24, 24 + 44, 24 - 7 + 50], 317), landscape: (24, [24, 24 + 44, 24 - 7 + 50], 497)),
    ]

    /// On every built-in device, for each presentation in portrait and in landscapeRight (one
    /// channel each): the presentation in effect, the window's frame (§1's with h replaced by
    /// Hw), the hidden content at −Hw, the slide from −Hw, the resting frames, the slide back.
    @Test(arguments: PresentationAPITests.screens.map(\.name))
    func everyDevice(_ name: String) throws {
        let screen = try #require(Self.screens.first { $0.name == name })
        try withLiveServer { live in
            let presentations = ["statusBar", "fullWidth", "pill", "auto"]
            let orientations = ["portrait", "landscapeRight"]
            func expected(_ presentation: String, _ orientation: String) -> (String, Double, [Double], Double, Double) {
                let inEffect = presentation == "auto" ? (screen.cutout ? "pill" : "statusBar") : presentation
                let side = orientation == "portrait" ? screen.portrait : screen.landscape
                let hw = side.heights[presentations.firstIndex(of: inEffect)!]
                let frame =
                    orientation == "portrait" ? [0, 0, screen.width, hw] : [screen.width - hw, 0, hw, screen.height]
                return (inEffect, hw, frame, side.safeArea, side.pillX)
            }
            for presentation in presentations {
                for orientation in orientations {
                    let path = "/channels/\(presentation)-\(orientation)"
                    #expect(try live.request("PUT", "\(path)/device", body: screen.name).status == 200)
                    #expect(try live.request("PUT", "\(path)/orientation", body: orientation).status == 200)
                    let put = try live.request("PUT", "\(path)/presentation", body: presentation)
                    let (inEffect, hw, frame, _, _) = expected(presentation, orientation)
                    #expect(put.status == 200)
                    #expect(put.json["presentation"]?.string == inEffect)
                    #expect(put.json["frame"]?.rect == frame, "\(path)")
                    #expect(put.json["contentOffset"]?.number == -hw, "\(path)")
                    #expect(put.json["pill"]?.isNull == true)
                    #expect(try live.request("POST", "\(path)/messages", body: "Hello").status == 202)
                }
            }
            for presentation in presentations {
                for orientation in orientations {
                    let (_, hw, frame, _, _) = expected(presentation, orientation)
                    let showing = try live.get("/channels/\(presentation)-\(orientation)/overlay").json
                    #expect(showing["frame"]?.rect == frame)
                    #expect(showing["contentOffset"]?.number == -hw)
                    let animation = showing["animation"]
                    #expect(animation?["property"]?.string == "contentOffset")
                    #expect(animation?["from"]?.number == -hw)
                    #expect(animation?["to"]?.number == 0)
                    #expect(animation?["start"]?.number == 0)
                    #expect(animation?["duration"]?.number == 0.25)
                    #expect(animation?["curve"] == nil)
                }
            }
            try live.advance(0.25)
            for presentation in presentations {
                for orientation in orientations {
                    let (inEffect, hw, _, safeArea, pillX) = expected(presentation, orientation)
                    let length = orientation == "portrait" ? screen.width : screen.height
                    let shown = try live.get("/channels/\(presentation)-\(orientation)/overlay").json
                    #expect(shown["contentOffset"]?.number == 0)
                    let label = shown["label"]?["frame"]?.rect
                    switch inEffect {
                    case "statusBar":
                        #expect(label == [30, 0, length - 60, hw])
                        #expect(shown["pill"]?.isNull == true)
                    case "fullWidth":
                        #expect(label == [30, safeArea, length - 60, safeArea >= 54 ? 38.66 : 44])
                        #expect(shown["pill"]?.isNull == true)
                    default:
                        #expect(shown["pill"]?["frame"]?.rect == [pillX, hw - 50, 200, 50])
                        #expect(shown["pill"]?["cornerRadius"]?.number == 25)
                        #expect(label == [pillX + 20, hw - 50, 160, 50])
                    }
                }
            }
            try live.advance(2.5)
            for presentation in presentations {
                let (_, hw, _, _, _) = expected(presentation, "portrait")
                let hiding = try live.get("/channels/\(presentation)-portrait/overlay").json["animation"]
                #expect(hiding?["from"]?.number == 0)
                #expect(hiding?["to"]?.number == -hw)
                #expect(hiding?["start"]?.number == 2.75)
            }
        }
    }

    /// `PUT /presentation` takes JSON, plain text, a form or the query, answers the overlay with
    /// the presentation in effect (`auto` is the pill on the iPhone 15 Pro), one version per
    /// change and none for the same name again.
    @Test func putPresentation() throws {
        try withLiveServer(configure: { $0.device = "iphone-15-pro" }) { live in
            #expect(try live.overlay()["presentation"]?.string == "pill")
            let json = try live.request(
                "PUT", "/presentation", headers: [("Content-Type", "application/json")],
                body: #"{"presentation": "fullWidth"}"#)
            #expect(json.status == 200)
            #expect(orderedKeys(json.body) == overlayKeyOrder)
            #expect(json.json["presentation"]?.string == "fullWidth")
            #expect(json.json["frame"]?.rect == [0, 0, 393, 59 + 38.66])
            #expect(json.json["version"]?.int == 1)
            #expect(json.header("ETag") == #"W/"1""#)

            let text = try live.request(
                "PUT", "/presentation", headers: [("Content-Type", "text/plain")], body: "statusBar\n")
            #expect(text.json["presentation"]?.string == "statusBar")
            #expect(text.json["frame"]?.rect == [0, 0, 393, 54])
            let form = try live.request(
                "PUT", "/presentation", headers: [FormBody.urlEncoded], body: "presentation=pill")
            #expect(form.json["presentation"]?.string == "pill")
            #expect(form.json["version"]?.int == 3)
            let query = try live.request("PUT", "/presentation?presentation=auto")
            #expect(query.json["presentation"]?.string == "pill")
            #expect(query.json["version"]?.int == 4)
            let same = try live.request("PUT", "/presentation", body: "auto")
            #expect(same.status == 200)
            #expect(same.json["version"]?.int == 4)
            // auto follows the device: statusBar on the iPad.
            #expect(try live.request("PUT", "/device", body: "ipad").json["presentation"]?.string == "statusBar")
        }
    }

    /// An unknown or missing presentation is 422 naming `presentation` (the names are case-sensitive)
    /// and changes nothing; on a channel that does not exist it creates none.
    @Test func unknownPresentation() throws {
        try withLiveServer(started: LiveServer.startedWithTwoMessages()) { live in
            let before = try live.observableState()
            for (headers, body) in [
                ([("Content-Type", "application/json")], #"{"presentation": "bubble"}"#),
                ([("Content-Type", "application/json")], #"{"presentation": "Pill"}"#),
                ([("Content-Type", "application/json")], "{}"),
                ([], "full-width"), ([], "presentation=popup"), ([], ""),
            ] {
                let refused = try live.request("PUT", "/presentation", headers: headers, body: body)
                expectError(refused, status: 422, code: "invalid_field", field: "presentation")
            }
            // A name of the wrong type is a bad request, as for the orientation.
            expectError(
                try live.request(
                    "PUT", "/presentation", headers: [("Content-Type", "application/json")],
                    body: #"{"presentation": 1}"#),
                status: 400, code: "bad_request", field: "presentation")
            expectError(
                try live.request("PUT", "/channels/ghost/presentation", body: "bubble"), status: 422,
                code: "invalid_field", field: "presentation")
            try live.expectUnchanged(since: before)
            #expect(try live.get("/channels").json["channels"]?.array?.count == 1)
            #expect(try live.overlay()["presentation"]?.string == "statusBar")
        }
    }

    /// Each channel has its own presentation; the configured one is every new channel's.
    @Test func perChannel() throws {
        try withLiveServer(configure: { $0.engine.presentation = .fullWidth }) { live in
            #expect(try live.overlay()["presentation"]?.string == "fullWidth")
            let put = try live.request("PUT", "/channels/tv/presentation", body: "pill")
            #expect(put.status == 200)
            #expect(put.json["presentation"]?.string == "pill")
            #expect(put.json["frame"]?.rect == [0, 0, 768, 73])
            #expect(try live.get("/channels/tv/overlay").json["presentation"]?.string == "pill")
            #expect(try live.get("/channels/other/overlay").json["presentation"]?.string == "fullWidth")
            #expect(try live.overlay()["presentation"]?.string == "fullWidth")
            #expect(try live.overlay()["frame"]?.rect == [0, 0, 768, 64])
        }
    }

    /// The configuration's keys: `presentation`, `showStyle` `bounce`, `bounceDuration`,
    /// `maxHoldSeconds` and `pill.height`.
    @Test func configurationKeys() throws {
        let configuration = try ServiceConfiguration.loaded(
            file: #"""
                {"presentation": "pill", "showStyle": "bounce", "bounceDuration": 0.5, "maxHoldSeconds": 12,
                 "pill": {"height": 44}}
                """#)
        #expect(configuration.engine.presentation == .pill)
        #expect(configuration.engine.showStyle == .bounce)
        #expect(configuration.engine.bounceDuration == .seconds(0.5))
        #expect(configuration.engine.maxHoldDuration == .seconds(12))
        #expect(configuration.engine.pillHeight == 44)
        #expect(ServiceConfiguration().engine.presentation == .auto)
        #expect(ServiceConfiguration().engine.maxHoldDuration == .seconds(30))
        #expect(ServiceConfiguration().engine.bounceDuration == .seconds(0.75))
    }

    /// A presentation that was PUT is durable: after a restart on the same data directory each
    /// channel has it back, with its device.
    @Test func durableAcrossARestart() throws {
        try withRestart { live throws in
            #expect(try live.request("PUT", "/device", body: "iphone-16-pro").status == 200)
            #expect(try live.request("PUT", "/presentation", body: "fullWidth").status == 200)
            #expect(try live.request("PUT", "/channels/tv/presentation", body: "pill").status == 200)
            #expect(try live.request("PUT", "/channels/auto/device", body: "iphone-14").status == 200)
        } then: { live in
            let overlay = try live.overlay()
            #expect(overlay["presentation"]?.string == "fullWidth")
            #expect(overlay["frame"]?.rect == [0, 0, 402, 62 + 38.66])
            #expect(overlay["contentOffset"]?.number == -(62 + 38.66))
            #expect(try live.get("/channels/tv/overlay").json["presentation"]?.string == "pill")
            #expect(try live.get("/channels/tv/overlay").json["frame"]?.rect == [0, 0, 768, 73])
            let auto = try live.get("/channels/auto/overlay").json
            #expect(auto["presentation"]?.string == "pill")
            #expect(auto["frame"]?.rect == [0, 0, 390, 90])
            // auto is still asked for: it follows a new device.
            #expect(
                try live.request("PUT", "/channels/auto/device", body: "ipad").json["presentation"]?.string
                    == "statusBar")
        }
    }

    /// Within a version every frame of the content is its resting frame with y + contentOffset,
    /// as `GET /overlay` fills them in: the pill, label, subtitle, accessory and progress bar 0.1 s
    /// into the slide on the iPhone 15 Pro. A presentation change then keeps the slide's fraction.
    @Test func framesMoveWithTheContent() throws {
        try withLiveServer(configure: { $0.device = "iphone-15-pro" }) { live in
            let body = #"{"text": "Uploading", "kind": "progress", "progress": 0.5, "subtitle": "2 of 8", "icon": "⬆️"}"#
            #expect(try live.post("/messages", json: body).status == 202)
            try live.advance(0.1)
            let moving = try live.overlay()
            let offset = try #require(moving["contentOffset"]?.number)
            #expect(offset == -109 + 109 * 0.4)
            try live.advance(0.15)
            let resting = try live.overlay()
            #expect(resting["contentOffset"]?.number == 0)
            for part in ["pill", "label", "subtitle", "accessory", "progressBar"] {
                let rest = try #require(resting[part]?["frame"]?.rect, "\(part)")
                #expect(moving[part]?["frame"]?.rect == [rest[0], rest[1] + offset, rest[2], rest[3]], "\(part)")
            }
            let barY = try #require(resting["progressBar"]?["frame"]?.rect?[1])
            #expect(barY == 59 + 50 - 2 - 5)

            // A second message slides in; fullWidth from 0.1 s on keeps the fraction 0.6 still to go.
            #expect(try live.request("DELETE", "/messages/1").status == 200)
            try live.advance(0.25)
            #expect(try live.post("/messages", json: #"{"text": "next"}"#).status == 202)
            try live.advance(0.1)
            let changed = try live.request("PUT", "/presentation", body: "fullWidth").json
            #expect(changed["animation"]?["from"]?.number == -(59 + 38.66))
            let fraction = try #require(changed["contentOffset"]?.number) / -(59 + 38.66)
            #expect(abs(fraction - 0.6) < 1e-12)
        }
    }
}
