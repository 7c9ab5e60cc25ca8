import Testing

@testable import OverlayEngine

/// Resolution through the controller chain, as scripts of the cases an app meets (a plain
/// controller, a tab bar under a custom root, a root that forgets to forward, presented
/// controllers), and every hierarchy that is refused, naming the field at fault.
@Suite("Controller hierarchy: resolution and validation")
struct ControllerHierarchyTests {
    typealias Controller = ControllerHierarchy.Controller

    static func resolved(_ root: String, _ controllers: [Controller]) throws -> ControllerHierarchy {
        try ControllerHierarchy.validated(root: root, controllers: controllers).get()
    }

    /// The field a refused hierarchy names, `nil` if it was accepted.
    static func refusedField(_ root: String, _ controllers: [Controller]) -> String? {
        if case .failure(.invalidField(let field, _)) = ControllerHierarchy.validated(
            root: root, controllers: controllers)
        {
            return field
        }
        return nil
    }

    /// A plain controller decides both, with its own preferences; the defaults are default style,
    /// shown, fade.
    @Test func plainController() throws {
        let plain = try Self.resolved("main", [Controller(name: "main")])
        #expect(plain.style == .init(value: .default, controller: "main", animation: .fade))
        #expect(plain.hidden == .init(value: false, controller: "main", animation: .fade))
        let light = try Self.resolved("main", [Controller(name: "main", preferredStatusBarStyle: .lightContent)])
        #expect(light.style.value == .lightContent)
    }

    /// A custom root whose children forward to the tab bar, which forwards to its visible tab: the
    /// tab decides both.
    @Test func tabBarUnderCustomRoot() throws {
        let hierarchy = try Self.resolved(
            "LMAppMainVC",
            [
                Controller(name: "LMAppMainVC", childForStatusBarStyle: "tabBar", childForStatusBarHidden: "tabBar"),
                Controller(name: "tabBar", childForStatusBarStyle: "feed", childForStatusBarHidden: "feed"),
                Controller(
                    name: "feed", preferredStatusBarStyle: .lightContent, prefersStatusBarHidden: true,
                    preferredStatusBarUpdateAnimation: .slide),
                Controller(name: "settings", preferredStatusBarStyle: .darkContent),
            ])
        #expect(hierarchy.style == .init(value: .lightContent, controller: "feed", animation: .slide))
        #expect(hierarchy.hidden == .init(value: true, controller: "feed", animation: .slide))
    }

    /// A root that does not forward to its tab bar child: the root's own preferences win, whatever
    /// the tab prefers (the bug of a custom root container).
    @Test func rootForgetsToForward() throws {
        let hierarchy = try Self.resolved(
            "LMAppMainVC",
            [
                Controller(name: "LMAppMainVC"),
                Controller(name: "tabBar", childForStatusBarStyle: "feed", childForStatusBarHidden: "feed"),
                Controller(name: "feed", preferredStatusBarStyle: .lightContent, prefersStatusBarHidden: true),
            ])
        #expect(hierarchy.style.value == .default)
        #expect(hierarchy.style.controller == "LMAppMainVC")
        #expect(hierarchy.hidden.value == false)
        #expect(hierarchy.hidden.controller == "LMAppMainVC")
    }

    /// A presented full-screen controller takes over from its presenter, before the presenter's child.
    @Test func presentedFullScreen() throws {
        let hierarchy = try Self.resolved(
            "nav",
            [
                Controller(
                    name: "nav", childForStatusBarStyle: "list", childForStatusBarHidden: "list", presented: "video"),
                Controller(name: "list", preferredStatusBarStyle: .darkContent),
                Controller(
                    name: "video", preferredStatusBarStyle: .lightContent, prefersStatusBarHidden: true,
                    preferredStatusBarUpdateAnimation: .none),
            ])
        #expect(hierarchy.style == .init(value: .lightContent, controller: "video", animation: .none))
        #expect(hierarchy.hidden == .init(value: true, controller: "video", animation: .none))
    }

    /// A presented controller that is not full screen leaves the status bar to its presenter (and
    /// the presenter's child), unless it captures the appearance.
    @Test(arguments: [false, true])
    func presentedNotFullScreen(captures: Bool) throws {
        let hierarchy = try Self.resolved(
            "nav",
            [
                Controller(name: "nav", childForStatusBarStyle: "list", presented: "sheet"),
                Controller(name: "list", preferredStatusBarStyle: .darkContent),
                Controller(
                    name: "sheet", preferredStatusBarStyle: .lightContent, prefersStatusBarHidden: true,
                    fullScreen: false, modalPresentationCapturesStatusBarAppearance: captures),
            ])
        #expect(hierarchy.style.controller == (captures ? "sheet" : "list"))
        #expect(hierarchy.style.value == (captures ? .lightContent : .darkContent))
        #expect(hierarchy.hidden.controller == (captures ? "sheet" : "nav"))
        #expect(hierarchy.hidden.value == captures)
    }

    /// Style and hidden walk apart: a root that forwards only the style has the child decide the
    /// style and itself decide hidden.
    @Test func styleAndHiddenByDifferentControllers() throws {
        let hierarchy = try Self.resolved(
            "nav",
            [
                Controller(
                    name: "nav", prefersStatusBarHidden: true, preferredStatusBarUpdateAnimation: .slide,
                    childForStatusBarStyle: "top"),
                Controller(name: "top", preferredStatusBarStyle: .lightContent, childForStatusBarHidden: "nav2"),
                Controller(name: "nav2"),
            ])
        #expect(hierarchy.style == .init(value: .lightContent, controller: "top", animation: .fade))
        #expect(hierarchy.hidden == .init(value: true, controller: "nav", animation: .slide))
    }

    /// A long chain: root → tab → nav, which presents a full-screen player that presents a sheet
    /// capturing the appearance.
    @Test func longChain() throws {
        let hierarchy = try Self.resolved(
            "root",
            [
                Controller(name: "root", childForStatusBarStyle: "tab", childForStatusBarHidden: "tab"),
                Controller(name: "tab", childForStatusBarStyle: "nav", childForStatusBarHidden: "nav"),
                Controller(name: "nav", presented: "player"),
                Controller(name: "player", prefersStatusBarHidden: true, presented: "sheet"),
                Controller(
                    name: "sheet", preferredStatusBarStyle: .darkContent, fullScreen: false,
                    modalPresentationCapturesStatusBarAppearance: true),
            ])
        #expect(hierarchy.style.controller == "sheet")
        #expect(hierarchy.hidden.controller == "sheet")
        #expect(hierarchy.hidden.value == false)
        #expect(hierarchy.controller(named: "player")?.prefersStatusBarHidden == true)
        #expect(hierarchy.controller(named: "nobody") == nil)
    }

    /// 64 controllers are accepted; 65 are refused naming `controllers`, as is an empty list.
    @Test func controllerCount() throws {
        let chain = (0..<64).map { index in
            Controller(name: "c\(index)", childForStatusBarStyle: index < 63 ? "c\(index + 1)" : nil)
        }
        let hierarchy = try Self.resolved("c0", chain)
        #expect(hierarchy.style.controller == "c63")
        #expect(Self.refusedField("c0", chain + [Controller(name: "c64")]) == "controllers")
        #expect(Self.refusedField("c0", []) == "controllers")
    }

    /// Each bad hierarchy is refused with the field at fault.
    @Test(arguments: [
        // Unknown names.
        ("main", [Controller(name: "main", childForStatusBarStyle: "tabs")], "controllers[0].childForStatusBarStyle"),
        (
            "main", [Controller(name: "main"), Controller(name: "x", childForStatusBarHidden: "y")],
            "controllers[1].childForStatusBarHidden"
        ),
        ("main", [Controller(name: "main", presented: "modal")], "controllers[0].presented"),
        ("nope", [Controller(name: "main")], "root"),
        ("", [Controller(name: "main")], "root"),
        // Cycles through children, presentations, and both mixed; also away from the root.
        ("a", [Controller(name: "a", childForStatusBarStyle: "a")], "controllers[0].childForStatusBarStyle"),
        (
            "a",
            [Controller(name: "a", childForStatusBarStyle: "b"), Controller(name: "b", childForStatusBarStyle: "a")],
            "controllers[1].childForStatusBarStyle"
        ),
        (
            "r", [Controller(name: "r"), Controller(name: "a", presented: "b"), Controller(name: "b", presented: "a")],
            "controllers[2].presented"
        ),
        (
            "r",
            [
                Controller(name: "r", childForStatusBarHidden: "a"), Controller(name: "a", presented: "b"),
                Controller(name: "b", childForStatusBarHidden: "a"),
            ], "controllers[2].childForStatusBarHidden"
        ),
        ("r", [Controller(name: "r", presented: "r")], "controllers[0].presented"),
        // A controller presented twice, or the root presented.
        (
            "r",
            [
                Controller(name: "r", presented: "m"), Controller(name: "x"), Controller(name: "m"),
                Controller(name: "y", presented: "m"),
            ], "controllers[3].presented"
        ),
        ("r", [Controller(name: "r"), Controller(name: "x", presented: "r")], "controllers[1].presented"),
        // Duplicate, empty, reserved and invalid names.
        ("a", [Controller(name: "a"), Controller(name: "b"), Controller(name: "a")], "controllers[2].name"),
        ("a", [Controller(name: "a"), Controller(name: "")], "controllers[1].name"),
        ("a", [Controller(name: "a"), Controller(name: "application")], "controllers[1].name"),
        ("a", [Controller(name: "a"), Controller(name: "tab bar")], "controllers[1].name"),
        ("a", [Controller(name: "a"), Controller(name: "é")], "controllers[1].name"),
        ("a", [Controller(name: "a"), Controller(name: String(repeating: "n", count: 65))], "controllers[1].name"),
    ])
    func refused(root: String, controllers: [Controller], field: String) {
        #expect(Self.refusedField(root, controllers) == field)
    }

    /// The reason says what is wrong, with the names involved.
    @Test func reasons() {
        func reason(_ root: String, _ controllers: [Controller]) -> String? {
            if case .failure(.invalidField(_, let reason)) = ControllerHierarchy.validated(
                root: root, controllers: controllers)
            {
                return reason
            }
            return nil
        }
        #expect(
            reason("a", [Controller(name: "a", childForStatusBarStyle: "b"), Controller(name: "b", presented: "a")])
                == "names the root, which is on screen without being presented")
        #expect(
            reason(
                "r",
                [
                    Controller(name: "r", childForStatusBarStyle: "a"),
                    Controller(name: "a", childForStatusBarStyle: "b"),
                    Controller(name: "b", childForStatusBarStyle: "a"),
                ]) == "closes a cycle: a → b → a")
        #expect(reason("a", [Controller(name: "a", presented: "zz")]) == "names no controller in controllers: zz")
        #expect(
            reason("a", [Controller(name: "a"), Controller(name: "a")]) == "repeats the name of controllers[0]: a")
        #expect(reason("a", [Controller(name: "a"), Controller(name: "x-1.b_c")]) == nil)
        // A controller's name never goes into a path: dot segments, which channels and devices
        // refuse, stay names here, and a hierarchy stored with one opens.
        #expect(reason("..", [Controller(name: "..", presented: "."), Controller(name: ".")]) == nil)
    }
}
