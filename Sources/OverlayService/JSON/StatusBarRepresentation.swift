import OverlayEngine

/// The status bar's JSON shapes: the `statusBar` member of `GET /overlay`, and the body of
/// `GET /statusbar` (that member plus what decides it).
extension JSONWriter {
    /// `{"style", "hidden", "alpha", "offset", "frame", "animation", "styleFrom", "hiddenFrom"}`.
    /// alpha and offset move within a version: in an overlay, they are moving values like its own
    /// (`moving(_:base:_:)`), slots for its template or written from `values`.
    mutating func statusBar(_ bar: StatusBarSnapshot, inOverlay: Bool = false, _ values: MovingValues? = nil) {
        beginObject()
        key("style")
        string(bar.style.rawValue)
        key("hidden")
        bool(bar.hidden)
        key("alpha")
        if inOverlay { moving(.statusBarAlpha, base: 0, values) } else { number(bar.alpha) }
        key("offset")
        if inOverlay { moving(.statusBarOffset, base: 0, values) } else { number(bar.offset) }
        key("frame")
        rect(bar.frame)
        key("animation")
        if let animation = bar.animation {
            statusBarAnimation(animation, curve: bar.curve)
        } else {
            null()
        }
        key("styleFrom")
        string(bar.styleFrom)
        key("hiddenFrom")
        string(bar.hiddenFrom)
        endObject()
    }

    /// The overlay's animation descriptor, naming the member it moves: `alpha`, or `offset` (the
    /// bar has an offset where the overlay has a contentOffset).
    private mutating func statusBarAnimation(_ animation: Transition, curve: Curve) {
        beginObject()
        key("property")
        string(animation.property == .alpha ? "alpha" : "offset")
        key("from")
        number(animation.from)
        key("to")
        number(animation.to)
        key("start")
        seconds(animation.start)
        key("duration")
        seconds(animation.length)
        if curve != .linear {
            key("curve")
            string(curve.rawValue)
        }
        endObject()
    }

    /// `GET /statusbar`: the version and time it was read at, the appearance mode, the bar, the
    /// animation its next change of hidden uses, and the hierarchy last sent (or null).
    mutating func statusBarState(_ bar: StatusBar, _ snapshot: StatusBarSnapshot, version: UInt64, now: Instant) {
        beginObject()
        key("version")
        integer(version)
        key("now")
        seconds(now)
        key("appearance")
        string(bar.configuration.appearance.rawValue)
        key("statusBar")
        statusBar(snapshot)
        key("updateAnimation")
        string(bar.animation.rawValue)
        key("hierarchy")
        if let hierarchy = bar.hierarchy { controllerHierarchy(hierarchy) } else { null() }
        endObject()
    }

    /// The hierarchy as `PUT /statusbar/controllers` takes it, every field written (defaults too),
    /// so that what is read back can be sent again as it is.
    mutating func controllerHierarchy(_ hierarchy: ControllerHierarchy) {
        beginObject()
        key("root")
        string(hierarchy.root)
        key("controllers")
        beginArray()
        for controller in hierarchy.controllers {
            beginObject()
            key("name")
            string(controller.name)
            key("preferredStatusBarStyle")
            string(controller.preferredStatusBarStyle.rawValue)
            key("prefersStatusBarHidden")
            bool(controller.prefersStatusBarHidden)
            key("preferredStatusBarUpdateAnimation")
            string(controller.preferredStatusBarUpdateAnimation.rawValue)
            key("childForStatusBarStyle")
            optionalString(controller.childForStatusBarStyle)
            key("childForStatusBarHidden")
            optionalString(controller.childForStatusBarHidden)
            key("presented")
            optionalString(controller.presented)
            key("fullScreen")
            bool(controller.fullScreen)
            key("modalPresentationCapturesStatusBarAppearance")
            bool(controller.modalPresentationCapturesStatusBarAppearance)
            endObject()
        }
        endArray()
        endObject()
    }

    private mutating func optionalString(_ text: String?) {
        if let text { string(text) } else { null() }
    }
}
