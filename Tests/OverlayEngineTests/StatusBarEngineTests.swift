import Testing

@testable import OverlayEngine

/// The status bar as part of the engine: its show animations in the overlay's snapshot, versions,
/// its deadlines among the engine's, the colours it gives `info` and `sending`, the controller
/// hierarchy as an engine event, what a store is told, and a restart.
@Suite("Status bar: in the engine")
struct StatusBarEngineTests {
    typealias Controller = ControllerHierarchy.Controller

    /// A new engine's bar: shown, lightContent, decided by the application, not holding anything.
    @Test func launchState() {
        let overlay = makeEngine().at(0)
        #expect(overlay.held == false)
        #expect(overlay.statusBar.style == .lightContent)
        #expect(overlay.statusBar.hidden == false)
        #expect(overlay.statusBar.alpha == 1)
        #expect(overlay.statusBar.offset == 0)
        #expect(overlay.statusBar.frame == Rect(x: 0, y: 0, width: 768, height: 20))
        #expect(overlay.statusBar.animation == nil)
        #expect(overlay.statusBar.styleFrom == "application")
        #expect(overlay.statusBar.hiddenFrom == "application")
    }

    /// A slide show of a bar hidden at launch: offset −20 → 0 with alpha 1, at start, middle and end.
    @Test func slideShow() throws {
        var engine = makeEngine { $0.statusBar.hiddenAtLaunch = true }
        #expect(engine.at(0).statusBar.alpha == 0)
        try engine.setBar(hidden: false, animation: .slide, at: 1)
        let start = engine.at(1).statusBar
        #expect(start.offset == -20)
        #expect(start.alpha == 1)
        #expect(start.animation == .contentOffset(from: -20, to: 0, start: 1, duration: 0.25))
        #expect(engine.at(1.125).statusBar.offset == -10)
        #expect(engine.at(1.125).statusBar.alpha == 1)
        let end = engine.at(1.25).statusBar
        #expect(end.offset == 0)
        #expect(end.alpha == 1)
        #expect(end.animation == nil)
        #expect(engine.at(1.25).version == 2)
    }

    /// An instant show: shown at once, no deadline, one version.
    @Test func noneShow() throws {
        var engine = makeEngine { $0.statusBar.hiddenAtLaunch = true }
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.setBar(hidden: false, animation: StatusBarAnimation.none, at: 1)
        let now = engine.at(1)
        #expect(now.statusBar.alpha == 1)
        #expect(now.statusBar.animation == nil)
        #expect(now.held == false)
        #expect(now.phase == .showing)
        #expect(now.version == 2)
        #expect(engine.nextDeadline == .seconds(1.25))
    }

    /// A PUT that changes nothing (hidden when hidden, the animation it has) is no version and
    /// nothing for a store.
    @Test func unchangedIsNoVersion() throws {
        var engine = makeEngine()
        let applied = engine.setStatusBar(StatusBarInput(hidden: false, animation: .fade), at: .seconds(1))
        #expect(try applied.value.get().changed == false)
        #expect(applied.changes.isEmpty)
        #expect(engine.version == 0)
    }

    /// A hide is one version for a store to write, with the message it sent back to the queue.
    @Test func changesForAStore() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        engine.advance(to: .seconds(0.5))
        let style = engine.setStatusBar(StatusBarInput(style: .darkContent), at: .seconds(0.5))
        #expect(style.changes.versionMoved)
        #expect(style.changes.messages.isEmpty)
        let hide = engine.setStatusBar(StatusBarInput(hidden: true), at: .seconds(1))
        #expect(hide.changes.versionMoved)
        #expect(hide.changes.messages.contains(1))
        #expect(engine.state.statusBar?.hidden == true)
        #expect(engine.state.statusBar?.style == .darkContent)
    }

    /// The bar's deadline is reached in time order with the engine's own, one version each, and a
    /// tie goes to the overlay's first. A 1 s show of the bar from 0 beside a 0.5 s message:
    /// show ends 0.25, message ends 0.75, overlay hidden and bar shown both at 1.0.
    @Test func deadlinesInTimeOrder() throws {
        var engine = makeEngine {
            $0.statusBar.hiddenAtLaunch = true
            $0.statusBar.animationDuration = .seconds(1)
        }
        try engine.setBar(hidden: false, at: 0)
        try engine.posted(.message("a", duration: 0.5), at: .seconds(0))
        #expect(engine.version == 2)
        #expect(engine.at(0.5).version == 3)
        #expect(engine.at(0.9).version == 4)
        #expect(isClose(engine.at(0.9).statusBar.alpha, 0.9))
        #expect(engine.at(0.9).phase == .hiding)
        let end = engine.at(1)
        #expect(end.version == 6)
        #expect(end.phase == .hidden)
        #expect(end.statusBar.animation == nil)
        #expect(engine.advance(to: .seconds(1)).versionMoved)
        #expect(engine.version == 6)
        #expect(engine.nextDeadline == nil)
    }

    /// info and sending take the bar's colours at once when its style changes (one version); sent
    /// keeps its own.
    @Test func coloursFollowTheStyle() throws {
        var engine = makeEngine()
        try engine.posted(.message("Sending…", kind: .sending), at: .seconds(0))
        #expect(engine.at(1).style == Style(background: "#1C1C1E", foreground: "#FFFFFF"))
        let version = engine.at(1).version
        try engine.setBar(style: .darkContent, at: 1)
        #expect(engine.at(1).style == Style(background: "#F2F2F7", foreground: "#000000"))
        #expect(engine.at(1).version == version + 1)
        #expect(engine.at(1).statusBar.style == .darkContent)
        try engine.setBar(style: .default, at: 2)
        #expect(engine.at(2).style == Style(background: "#F2F2F7", foreground: "#000000"))
        try engine.posted(.message("Sent", kind: .sent, immediate: true), at: .seconds(3))
        #expect(engine.at(3).style == Style(background: "#34C759", foreground: "#FFFFFF"))
    }

    /// With `controllers` appearance the hierarchy is an engine event: the controller that decides
    /// hidden hides the bar with its own animation and holds the overlay; a direct setting is
    /// refused and changes nothing; the same hierarchy again is no version.
    @Test func controllersHoldTheOverlay() throws {
        var engine = makeEngine { $0.statusBar.appearance = .controllers }
        try engine.posted(.message("a"), at: .seconds(0))
        engine.advance(to: .seconds(1))
        let refused = engine.setStatusBar(StatusBarInput(hidden: true), at: .seconds(1))
        #expect(refused.value == .failure(.wrongAppearance(field: "hidden", appearance: .controllers)))
        #expect(refused.changes.isEmpty)
        let video = try ControllerHierarchy.validated(
            root: "tabs",
            controllers: [
                Controller(name: "tabs", childForStatusBarStyle: "player", childForStatusBarHidden: "player"),
                Controller(name: "player", prefersStatusBarHidden: true, preferredStatusBarUpdateAnimation: .slide),
            ]
        ).get()
        let effect = try engine.setControllers(video, at: .seconds(1)).value.get()
        #expect(effect.visibility == .hide)
        let overlay = engine.at(1.125)
        #expect(overlay.held)
        #expect(overlay.phase == .hiding)
        #expect(overlay.contentOffset == -10)
        #expect(overlay.statusBar.offset == -10)
        #expect(overlay.statusBar.hiddenFrom == "player")
        #expect(overlay.statusBar.style == .default)
        let version = engine.version
        #expect(engine.setControllers(video, at: .seconds(1.125)).changes.isEmpty)
        #expect(engine.version == version)
        // The player goes: the root decides, shows the bar, and the message shows again.
        let home = try ControllerHierarchy.validated(root: "tabs", controllers: [Controller(name: "tabs")]).get()
        #expect(try engine.setControllers(home, at: .seconds(2)).value.get().visibility == .show)
        #expect(engine.at(2).phase == .showing)
        #expect(engine.at(2).statusBar.hiddenFrom == "tabs")
        #expect(engine.at(2).statusBar.animation == .alpha(from: 0, to: 1, start: 2, duration: 0.25))
    }

    /// In `application` appearance a hierarchy is refused, and nothing changes.
    @Test func controllersRefusedInApplicationMode() throws {
        var engine = makeEngine()
        let hierarchy = try ControllerHierarchy.validated(root: "a", controllers: [Controller(name: "a")]).get()
        let applied = engine.setControllers(hierarchy, at: .seconds(1))
        #expect(applied.value == .failure(.wrongAppearance(field: "controllers", appearance: .application)))
        #expect(applied.changes.isEmpty)
        #expect(engine.statusBar.hierarchy == nil)
    }

    /// After a restart a hidden bar still holds the queue: the message that was shown waits, with
    /// the others, until the bar shows.
    @Test func restartWhileHeld() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.posted(.message("b"), at: .seconds(0))
        try engine.setBar(style: .darkContent, hidden: true, animation: .slide, at: 1)
        let stored = StoredEngine(engine)
        let restored = OverlayEngine.restored(
            configuration: engine.configuration, state: stored.state, live: stored.live, history: stored.history,
            devices: [:], now: .seconds(5)
        ).value
        let overlay = restored.at(5)
        #expect(overlay.phase == .hidden)
        #expect(overlay.held)
        #expect(overlay.queued == 2)
        #expect(overlay.statusBar.style == .darkContent)
        #expect(overlay.statusBar.offset == -20)
        #expect(restored.liveMessages.map(\.id) == [1, 2])
        #expect(restored.statusBar.record == engine.statusBar.record)
    }

    /// A stored channel without a bar (from before there was one) starts with the launch state.
    @Test func restartWithoutAStoredBar() {
        var state = EngineState(version: 7, nextID: 3)
        state.statusBar = nil
        var configuration = EngineConfiguration()
        configuration.statusBar.hiddenAtLaunch = true
        let restored = OverlayEngine.restored(
            configuration: configuration, state: state, live: [], history: [], devices: [:]
        ).value
        #expect(restored.statusBar.hidden)
        #expect(restored.version == 7)
    }

    /// With `controllers` appearance a stored hierarchy decides again at start-up; a bar that
    /// comes out otherwise than stored is one more version, so that a store writes it.
    @Test func restartDecidesAgain() throws {
        let hierarchy = try ControllerHierarchy.validated(
            root: "root", controllers: [Controller(name: "root", prefersStatusBarHidden: true)]
        ).get()
        let record = StatusBar.Record(
            style: .lightContent, hidden: false, animation: .fade, hiddenBy: .fade, hierarchy: hierarchy)
        var configuration = EngineConfiguration()
        configuration.statusBar.appearance = .controllers
        let applied = OverlayEngine.restored(
            configuration: configuration, state: EngineState(version: 7, nextID: 1, statusBar: record), live: [],
            history: [], devices: [:])
        #expect(applied.value.statusBar.hidden)
        #expect(applied.value.at(0).held)
        #expect(applied.value.version == 8)
        #expect(applied.changes.versionMoved)
    }
}
