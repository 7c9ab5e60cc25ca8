import MicroHTTP
import OverlayEngine
import ServiceTestSupport
import Testing

@testable import OverlayService

/// The status bar's JSON: the `statusBar` member of `/overlay` byte for byte, its template gaps,
/// and the `GET /statusbar` body, whose hierarchy can be sent back as it is.
@Suite("Status bar JSON")
struct StatusBarRepresentationTests {
    static func written(_ write: (inout JSONWriter) -> Void) -> String {
        var writer = JSONWriter()
        write(&writer)
        return String(decoding: writer.bytes, as: UTF8.self)
    }

    static func bar(
        curve: Curve = .linear, _ configure: (inout StatusBarConfiguration) -> Void = { _ in }
    )
        -> StatusBar
    {
        var configuration = StatusBarConfiguration()
        configure(&configuration)
        return StatusBar(configuration: configuration, curve: curve)
    }

    /// Half-way through a fade hide: every member in order, the descriptor animating `alpha`.
    @Test func fadeMember() throws {
        var bar = Self.bar()
        _ = try bar.apply(StatusBarInput(style: .darkContent, hidden: true, animation: .fade), at: .seconds(1)).get()
        let snapshot = bar.snapshot(at: .seconds(1.125), orientation: .portrait, device: .ipad)
        #expect(
            Self.written { $0.statusBar(snapshot) }
                == #"{"style":"darkContent","hidden":true,"alpha":0.5,"offset":0,"#
                + #""frame":{"x":0,"y":0,"width":768,"height":20},"#
                + #""animation":{"property":"alpha","from":1,"to":0,"start":1,"duration":0.25},"#
                + #""styleFrom":"application","hiddenFrom":"application"}"#)
    }

    /// A slide's descriptor animates `offset` (the member's name), in points; with easeInOut it
    /// says so; at rest the animation is null.
    @Test func slideMember() throws {
        var bar = Self.bar(curve: .easeInOut)
        _ = try bar.apply(StatusBarInput(hidden: true, animation: .slide), at: .seconds(2)).get()
        let running = try JSONParser.parse(
            Array(
                Self.written {
                    $0.statusBar(bar.snapshot(at: .seconds(2.125), orientation: .landscapeRight, device: .iphoneNotch))
                }.utf8))
        #expect(running["offset"]?.number == -22)
        #expect(running["alpha"]?.number == 1)
        #expect(running["frame"]?["x"]?.number == 331)
        #expect(running["frame"]?["height"]?.number == 812)
        #expect(
            running["animation"]
                == .object([
                    "property": .string("offset"), "from": .number(0), "to": .number(-44), "start": .number(2),
                    "duration": .number(0.25), "curve": .string("easeInOut"),
                ]))
        let atRest = try JSONParser.parse(
            Array(
                Self.written { $0.statusBar(bar.snapshot(at: .seconds(3), orientation: .portrait, device: .ipad)) }.utf8
            ))
        #expect(atRest["animation"] == .null)
        #expect(atRest["offset"]?.number == -20)
        #expect(atRest["alpha"]?.number == 0)
    }

    /// In an overlay, alpha and offset are gaps tagged for the template, and nothing else is.
    @Test func templateSlots() {
        var writer = JSONWriter()
        let snapshot = Self.bar().snapshot(at: .zero, orientation: .portrait, device: .ipad)
        writer.statusBar(snapshot, inOverlay: true)
        let tags = [OverlayTemplate.Slot.statusBarAlpha, .statusBarOffset].map(\.rawValue)
        #expect(writer.slots.map(\.tag) == tags)
        let text = String(decoding: writer.bytes, as: UTF8.self)
        let alphaGap = text.utf8.index(text.utf8.startIndex, offsetBy: writer.slots[0].offset)
        let offsetGap = text.utf8.index(text.utf8.startIndex, offsetBy: writer.slots[1].offset)
        #expect(text[..<alphaGap].hasSuffix(#""alpha":"#))
        #expect(text[..<offsetGap].hasSuffix(#""offset":"#))
    }

    /// In an overlay written in place, alpha and offset are the moving values given, not the bar's:
    /// what its template filled in with them would read.
    @Test func movingValuesWrittenInPlace() throws {
        var values = MovingValues(OverlayEngine(configuration: EngineConfiguration()).overlay(at: .zero))
        values.statusBarAlpha = 0.25
        values.statusBarOffset = -7.5
        let snapshot = Self.bar().snapshot(at: .zero, orientation: .portrait, device: .ipad)
        #expect(snapshot.alpha == 1 && snapshot.offset == 0)
        let written = try JSONParser.parse(Array(Self.written { $0.statusBar(snapshot, inOverlay: true, values) }.utf8))
        #expect(written["alpha"]?.number == 0.25)
        #expect(written["offset"]?.number == -7.5)
        #expect(written["frame"]?["width"]?.number == 768)
    }

    /// `GET /statusbar` in application mode without a hierarchy: the mode, the bar, the animation
    /// of the next change, and a null hierarchy.
    @Test func stateWithoutHierarchy() throws {
        let bar = Self.bar { $0.hiddenAtLaunch = true }
        let snapshot = bar.snapshot(at: .seconds(4), orientation: .portrait, device: .iphone)
        let state = try JSONParser.parse(
            Array(Self.written { $0.statusBarState(bar, snapshot, version: 12, now: .seconds(4)) }.utf8))
        #expect(state["version"]?.number == 12)
        #expect(state["now"]?.number == 4)
        #expect(state["appearance"]?.string == "application")
        #expect(state["updateAnimation"]?.string == "fade")
        #expect(state["hierarchy"] == .null)
        #expect(state["statusBar"]?["hidden"] == .bool(true))
        #expect(state["statusBar"]?["style"]?.string == "lightContent")
        #expect(state["statusBar"]?["frame"]?["width"]?.number == 320)
    }

    /// The hierarchy read back has every field, and decodes to the hierarchy that was sent.
    @Test func hierarchyRoundTrip() throws {
        var bar = Self.bar { $0.appearance = .controllers }
        let sent = try StatusBarDecoder.hierarchy(
            HTTPRequest.put(
                "/statusbar/controllers",
                json: #"""
                    {"root": "main", "controllers": [
                      {"name": "main", "childForStatusBarStyle": "tabs", "childForStatusBarHidden": "tabs",
                       "presented": "player"},
                      {"name": "tabs", "preferredStatusBarStyle": "lightContent"},
                      {"name": "player", "prefersStatusBarHidden": true, "preferredStatusBarUpdateAnimation": "slide",
                       "fullScreen": false, "modalPresentationCapturesStatusBarAppearance": true}
                    ]}
                    """#))
        _ = try bar.apply(sent, at: .seconds(1)).get()
        let state = try JSONParser.parse(
            Array(
                Self.written {
                    $0.statusBarState(
                        bar, bar.snapshot(at: .seconds(1), orientation: .portrait, device: .ipad), version: 3,
                        now: .seconds(1))
                }.utf8))
        #expect(state["appearance"]?.string == "controllers")
        #expect(state["updateAnimation"]?.string == "slide")
        #expect(state["statusBar"]?["styleFrom"]?.string == "player")
        #expect(state["statusBar"]?["hiddenFrom"]?.string == "player")
        let tabs = state["hierarchy"]?["controllers"]?[1]
        #expect(
            tabs
                == .object([
                    "name": .string("tabs"), "preferredStatusBarStyle": .string("lightContent"),
                    "prefersStatusBarHidden": .bool(false), "preferredStatusBarUpdateAnimation": .string("fade"),
                    "childForStatusBarStyle": .null, "childForStatusBarHidden": .null, "presented": .null,
                    "fullScreen": .bool(true), "modalPresentationCapturesStatusBarAppearance": .bool(false),
                ]))
        let readBack = try StatusBarDecoder.hierarchy(
            root: state["hierarchy"]?["root"], controllers: state["hierarchy"]?["controllers"])
        #expect(readBack == sent)
    }
}
