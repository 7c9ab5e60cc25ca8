import Testing

@testable import OverlayEngine

/// The appearance modes, what the bar does to the overlay (its hide beside the bar's, the colours
/// of info and sending), and the bar's record for a store.
@Suite("Status bar: appearance, overlay, record")
struct StatusBarModeTests {
    typealias Controller = ControllerHierarchy.Controller

    static func hierarchy(_ root: String, _ controllers: [Controller]) throws -> ControllerHierarchy {
        try ControllerHierarchy.validated(root: root, controllers: controllers).get()
    }

    /// With `controllers` appearance a direct style, hidden or animation is refused naming the
    /// setting, and nothing changes.
    @Test(arguments: [
        (StatusBarInput(style: .darkContent), "style"), (StatusBarInput(hidden: true), "hidden"),
        (StatusBarInput(animation: .slide), "animation"),
        (StatusBarInput(style: .darkContent, hidden: true, animation: .slide), "style"),
        (StatusBarInput(hidden: true, animation: .slide), "hidden"),
    ])
    func directSettingsRefused(input: StatusBarInput, field: String) {
        var bar = makeStatusBar { $0.appearance = .controllers }
        let before = bar
        let result = bar.apply(input, at: .seconds(1))
        #expect(result == .failure(.wrongAppearance(field: field, appearance: .controllers)))
        #expect(bar.record == before.record)
        #expect(bar.alpha(1) == 1)
    }

    /// With `application` appearance a hierarchy is refused rather than kept without effect.
    @Test func hierarchyRefusedInApplicationMode() throws {
        var bar = makeStatusBar()
        let hierarchy = try Self.hierarchy("main", [Controller(name: "main", prefersStatusBarHidden: true)])
        let result = bar.apply(hierarchy, at: .seconds(1))
        #expect(result == .failure(.wrongAppearance(field: "controllers", appearance: .application)))
        #expect(bar.hierarchy == nil)
        #expect(bar.hidden == false)
    }

    /// With `controllers` appearance the hierarchy decides style and hidden, and says who decided;
    /// the change of hidden uses the deciding controller's animation.
    @Test func controllersDecide() throws {
        var bar = makeStatusBar { $0.appearance = .controllers }
        let hierarchy = try Self.hierarchy(
            "main",
            [
                Controller(name: "main", childForStatusBarStyle: "feed", childForStatusBarHidden: "video"),
                Controller(name: "feed", preferredStatusBarStyle: .darkContent),
                Controller(name: "video", prefersStatusBarHidden: true, preferredStatusBarUpdateAnimation: .slide),
            ])
        let effect = try bar.apply(hierarchy, at: .seconds(1)).get()
        #expect(
            effect
                == StatusBarEffect(changed: true, styleChanged: true, visibility: .hide, nextDeadline: .seconds(1.25)))
        #expect(bar.style == .darkContent)
        #expect(bar.styleFrom == "feed")
        #expect(bar.hiddenFrom == "video")
        #expect(bar.animation == .slide)
        #expect(bar.offset(1.125) == -10)
        #expect(bar.holdsOverlay)
        #expect(bar.hierarchy == hierarchy)
        // The same hierarchy again (setNeedsStatusBarAppearanceUpdate with nothing new) changes nothing.
        let again = try bar.apply(hierarchy, at: .seconds(2)).get()
        #expect(again.changed == false)
    }

    /// A new hierarchy whose decider prefers the bar shown shows it with that decider's animation.
    @Test func controllersShowAgain() throws {
        var bar = makeStatusBar {
            $0.appearance = .controllers
            $0.hiddenAtLaunch = true
        }
        #expect(bar.hiddenFrom == "application")
        let splash = try Self.hierarchy(
            "nav",
            [
                Controller(name: "nav", presented: "splash"),
                Controller(name: "splash", prefersStatusBarHidden: true, preferredStatusBarUpdateAnimation: .none),
            ])
        let first = try bar.apply(splash, at: .seconds(0)).get()
        #expect(first.visibility == nil)
        #expect(first.changed)
        #expect(bar.hiddenFrom == "splash")
        let dismissed = try Self.hierarchy("nav", [Controller(name: "nav", preferredStatusBarUpdateAnimation: .fade)])
        let effect = try bar.apply(dismissed, at: .seconds(1)).get()
        #expect(effect.visibility == .show)
        #expect(bar.alpha(1.125) == 0.5)
        #expect(bar.hiddenFrom == "nav")
        #expect(bar.styleFrom == "nav")
        #expect(bar.style == .default)
    }

    /// The overlay's hide while the bar hides runs beside the bar's: same start and length, alpha
    /// for a fade, contentOffset for a slide, nothing for an instant hide.
    @Test func overlayHide() throws {
        var fade = makeStatusBar()
        try fade.set(hidden: true, animation: .fade, at: 1)
        #expect(fade.overlayHide(statusBarHeight: 20) == .alpha(from: 1, to: 0, start: 1, duration: 0.25))
        var slide = makeStatusBar()
        try slide.set(hidden: true, animation: .slide, at: 1)
        #expect(slide.overlayHide(statusBarHeight: 44) == .contentOffset(from: 0, to: -44, start: 1, duration: 0.25))
        var instant = makeStatusBar()
        try instant.set(hidden: true, animation: StatusBarAnimation.none, at: 1)
        #expect(instant.overlayHide(statusBarHeight: 20) == nil)
        // A hide that interrupts a show ends with the bar's, after the share that remained.
        var interrupted = makeStatusBar { $0.hiddenAtLaunch = true }
        try interrupted.set(hidden: false, animation: .fade, at: 0)
        try interrupted.set(hidden: true, at: 0.05)
        #expect(interrupted.overlayHide(statusBarHeight: 20) == .alpha(from: 1, to: 0, start: 0.05, duration: 0.05))
        // A showing bar, or one whose hide has ended, has no hide for the overlay.
        #expect(makeStatusBar().overlayHide(statusBarHeight: 20) == nil)
        fade.advance(to: .seconds(1.25))
        #expect(fade.overlayHide(statusBarHeight: 20) == nil)
    }

    /// info and sending follow the bar's drawn style; the other kinds keep their colours.
    @Test(arguments: MessageKind.allCases)
    func colours(kind: MessageKind) {
        let engine = EngineConfiguration()
        let bar = StatusBarConfiguration()
        let own = engine.styles[kind]
        let follows = kind == .info || kind == .sending
        let light = Style(background: "#1C1C1E", foreground: "#FFFFFF")
        let dark = Style(background: "#F2F2F7", foreground: "#000000")
        #expect(engine.style(for: kind, statusBarStyle: .lightContent, statusBar: bar) == (follows ? light : own))
        #expect(engine.style(for: kind, statusBarStyle: .darkContent, statusBar: bar) == (follows ? dark : own))
        #expect(engine.style(for: kind, statusBarStyle: .default, statusBar: bar) == (follows ? dark : own))
    }

    /// Both colour pairs are configurable; without a light pair, a configured kind style is kept
    /// under a lightContent bar.
    @Test func configuredColours() {
        var engine = EngineConfiguration()
        engine.styles[.info] = Style(background: "#000000", foreground: "#FFCC00")
        var bar = StatusBarConfiguration()
        bar.darkContentColours = Style(background: "#FFFFFF", foreground: "#333333")
        #expect(
            engine.style(for: .info, statusBarStyle: .lightContent, statusBar: bar)
                == Style(background: "#000000", foreground: "#FFCC00"))
        #expect(
            engine.style(for: .sending, statusBarStyle: .default, statusBar: bar)
                == Style(background: "#FFFFFF", foreground: "#333333"))
        bar.lightContentColours = Style(background: "#222222", foreground: "#EEEEEE")
        #expect(
            engine.style(for: .info, statusBarStyle: .lightContent, statusBar: bar)
                == Style(background: "#222222", foreground: "#EEEEEE"))
        #expect(
            engine.style(for: .failed, statusBarStyle: .darkContent, statusBar: bar)
                == Style(background: "#FF3B30", foreground: "#FFFFFF"))
    }

    /// A stored bar comes back at rest with its style, hidden flag, animation and hierarchy; a bar
    /// that slid out rests at −h again.
    @Test func restoreAtRest() throws {
        var bar = makeStatusBar()
        try bar.set(style: .darkContent, hidden: true, animation: .slide, at: 1)
        let restored = StatusBar(configuration: StatusBarConfiguration(), restoring: bar.record)
        #expect(restored.record == bar.record)
        #expect(restored.hidden)
        #expect(restored.style == .darkContent)
        #expect(restored.animation == .slide)
        #expect(restored.nextDeadline == nil)
        #expect(restored.offset(0) == -20)
        #expect(restored.alpha(0) == 0)
        #expect(restored.styleFrom == "application")
    }

    /// With `controllers` appearance a restored hierarchy decides again, even if the stored flags
    /// came from a run in `application` appearance.
    @Test func restoreResolvesAgain() throws {
        let hierarchy = try Self.hierarchy(
            "root", [Controller(name: "root", preferredStatusBarStyle: .darkContent, prefersStatusBarHidden: true)])
        let record = StatusBar.Record(
            style: .lightContent, hidden: false, animation: .slide, hiddenBy: .none, hierarchy: hierarchy)
        var configuration = StatusBarConfiguration()
        configuration.appearance = .controllers
        let restored = StatusBar(configuration: configuration, restoring: record)
        #expect(restored.style == .darkContent)
        #expect(restored.hidden)
        #expect(restored.styleFrom == "root")
        #expect(restored.hiddenFrom == "root")
        #expect(restored.animation == .fade)
        #expect(restored.alpha(0) == 0)
        #expect(restored.nextDeadline == nil)
        // In application appearance the hierarchy is kept but decides nothing.
        let application = StatusBar(configuration: StatusBarConfiguration(), restoring: record)
        #expect(application.hidden == false)
        #expect(application.hierarchy == hierarchy)
        #expect(application.hiddenFrom == "application")
    }
}
