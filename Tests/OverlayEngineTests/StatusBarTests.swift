import Testing

@testable import OverlayEngine

/// The app's own status bar: launch state, direct settings, and each hide and show animation as a
/// script on a manual clock (ipad: h = 20; duration 0.25 s).
@Suite("Status bar: state and animations")
struct StatusBarTests {
    /// At launch the bar has the configured style, is shown at rest, and the application decides.
    @Test func launchState() {
        let bar = makeStatusBar()
        #expect(bar.style == .lightContent)
        #expect(bar.hidden == false)
        #expect(bar.holdsOverlay == false)
        #expect(bar.alpha(0) == 1)
        #expect(bar.offset(0) == 0)
        #expect(bar.animation(0) == nil)
        #expect(bar.nextDeadline == nil)
        #expect(bar.styleFrom == "application")
        #expect(bar.hiddenFrom == "application")
        #expect(bar.animation == .fade)
        #expect(bar.configuration.animationDuration == .seconds(0.25))
    }

    /// Hidden at launch (the splash-screen setup): alpha 0, offset 0, and the overlay is held.
    @Test func hiddenAtLaunch() {
        let bar = makeStatusBar {
            $0.hiddenAtLaunch = true
            $0.style = .darkContent
        }
        #expect(bar.hidden)
        #expect(bar.holdsOverlay)
        #expect(bar.alpha(3) == 0)
        #expect(bar.offset(3) == 0)
        #expect(bar.style == .darkContent)
    }

    /// A fade hide takes alpha 1 → 0 over 0.25 s; the offset stays 0; the overlay is held from the
    /// start; the animation is described as it runs, and its end is the deadline.
    @Test func fadeHide() throws {
        var bar = makeStatusBar()
        let effect = try bar.set(hidden: true, animation: .fade, at: 1)
        #expect(
            effect
                == StatusBarEffect(changed: true, styleChanged: false, visibility: .hide, nextDeadline: .seconds(1.25)))
        #expect(bar.holdsOverlay)
        #expect(bar.alpha(1) == 1)
        #expect(bar.alpha(1.125) == 0.5)
        #expect(bar.alpha(1.25) == 0)
        #expect([1, 1.125, 1.25].allSatisfy { bar.offset($0) == 0 })
        #expect(bar.animation(1.1) == .alpha(from: 1, to: 0, start: 1, duration: 0.25))
        #expect(bar.animation(1.25) == nil)
        let early = bar.advance(to: .seconds(1.2))
        #expect(early == false)
        let reached = bar.advance(to: .seconds(1.25))
        #expect(reached)
        #expect(bar.nextDeadline == nil)
        #expect(bar.alpha(2) == 0)
        #expect(bar.offset(2) == 0)
    }

    /// A fade show takes alpha 0 → 1; the overlay is released at its start.
    @Test func fadeShow() throws {
        var bar = makeStatusBar { $0.hiddenAtLaunch = true }
        let effect = try bar.set(hidden: false, animation: .fade, at: 2)
        #expect(effect.visibility == .show)
        #expect(effect.nextDeadline == .seconds(2.25))
        #expect(bar.holdsOverlay == false)
        #expect(bar.alpha(2) == 0)
        #expect(bar.alpha(2.0625) == 0.25)
        #expect(bar.alpha(2.125) == 0.5)
        #expect(bar.alpha(2.25) == 1)
        #expect(bar.offset(2.1) == 0)
        #expect(bar.animation(2) == .alpha(from: 0, to: 1, start: 2, duration: 0.25))
    }

    /// A slide hide takes the offset 0 → −h with alpha 1; once hidden the bar rests at −h, alpha 0.
    @Test(arguments: [(20.0, -10.0), (44.0, -22.0)])
    func slideHide(height: Double, middle: Double) throws {
        var bar = makeStatusBar()
        try bar.set(hidden: true, animation: .slide, at: 1)
        #expect(bar.offset(1, height: height) == 0)
        #expect(bar.offset(1.125, height: height) == middle)
        #expect(bar.offset(1.25, height: height) == -height)
        #expect(bar.alpha(1) == 1)
        #expect(bar.alpha(1.2) == 1)
        #expect(bar.alpha(1.25) == 0)
        #expect(
            bar.animation(1.1, height: height) == .contentOffset(from: 0, to: -height, start: 1, duration: 0.25))
        bar.advance(to: .seconds(1.25))
        #expect(bar.offset(5, height: height) == -height)
    }

    /// A slide show takes the offset −h → 0 with alpha 1 from its first instant.
    @Test func slideShow() throws {
        var bar = makeStatusBar()
        try bar.set(hidden: true, animation: .slide, at: 0)
        bar.advance(to: .seconds(1))
        try bar.set(hidden: false, at: 1)
        #expect(bar.offset(1) == -20)
        #expect(bar.alpha(1) == 1)
        #expect(bar.offset(1.125) == -10)
        #expect(bar.offset(1.25) == 0)
        #expect(bar.animation(1.2) == .contentOffset(from: -20, to: 0, start: 1, duration: 0.25))
    }

    /// With `none` a hide and a show are instant: no animation, no deadline.
    @Test func noneIsInstant() throws {
        var bar = makeStatusBar()
        let hide = try bar.set(hidden: true, animation: StatusBarAnimation.none, at: 1)
        #expect(hide == StatusBarEffect(changed: true, styleChanged: false, visibility: .hide, nextDeadline: nil))
        #expect(bar.alpha(1) == 0)
        #expect(bar.offset(1) == 0)
        #expect(bar.animation(1) == nil)
        let show = try bar.set(hidden: false, at: 2)
        #expect(show.visibility == .show)
        #expect(show.nextDeadline == nil)
        #expect(bar.alpha(2) == 1)
    }

    /// With `easeInOut` a hide follows the curve (compared with an independent Bézier solution).
    @Test(arguments: [StatusBarAnimation.fade, .slide])
    func easeInOut(animation: StatusBarAnimation) throws {
        var bar = makeStatusBar(curve: .easeInOut)
        try bar.set(hidden: true, animation: animation, at: 0)
        let quarter = bezierEaseInOut(0.25)
        if animation == .fade {
            #expect(isClose(bar.alpha(0.0625), 1 - quarter))
            #expect(isClose(bar.alpha(0.125), 0.5))
            #expect(bar.alpha(0.1875) < 0.25)
        } else {
            #expect(isClose(bar.offset(0.0625), -20 * quarter))
            #expect(isClose(bar.offset(0.125), -10))
        }
        #expect(bar.snapshot(at: .seconds(0.1), orientation: .portrait, device: .ipad).curve == .easeInOut)
        #expect(bar.alpha(0.25) == 0)
    }

    /// A show that interrupts a fade hide goes on from the alpha reached, at the same speed: from
    /// 0.6 the remaining 0.4 takes 0.1 s.
    @Test func interruptedFadeHide() throws {
        var bar = makeStatusBar()
        try bar.set(hidden: true, animation: .fade, at: 1)
        let effect = try bar.set(hidden: false, at: 1.1)
        #expect(effect.visibility == .show)
        #expect(effect.nextDeadline == .seconds(1.2))
        #expect(isClose(bar.alpha(1.1), 0.6))
        #expect(isClose(bar.alpha(1.15), 0.8))
        #expect(bar.alpha(1.2) == 1)
        let running = try #require(bar.animation(1.15))
        #expect(isClose(running.from, 0.6))
        #expect(running.to == 1)
        #expect(running.start == .seconds(1.1))
        #expect(running.length == .seconds(0.1))
    }

    /// A hide that interrupts a slide show starts from the offset reached: from −15 the remaining
    /// quarter of the way out takes a quarter of the duration.
    @Test func hideInterruptsSlideShow() throws {
        var bar = makeStatusBar { $0.hiddenAtLaunch = true }
        try bar.set(hidden: false, animation: .slide, at: 0)
        #expect(bar.offset(0.0625) == -15)
        try bar.set(hidden: true, at: 0.0625)
        #expect(bar.nextDeadline == .seconds(0.125))
        #expect(bar.animation(0.1) == .contentOffset(from: -15, to: -20, start: 0.0625, duration: 0.0625))
        #expect(bar.offset(0.09375) == -17.5)
        #expect(bar.offset(0.125) == -20)
    }

    /// A change that switches animation half-way keeps how far the bar had got: a slide show after
    /// 40 % of a fade hide starts 40 % of h out, with alpha 1.
    @Test func switchingAnimationKeepsTheFraction() throws {
        var bar = makeStatusBar()
        try bar.set(hidden: true, animation: .fade, at: 0)
        try bar.set(hidden: false, animation: .slide, at: 0.1)
        #expect(isClose(bar.offset(0.1), -8))
        #expect(bar.alpha(0.1) == 1)
        #expect(bar.nextDeadline == .seconds(0.2))
    }

    /// A hide during a hide goes on as it was; a setting equal to the state changes nothing.
    @Test func repeatedSettingsChangeNothing() throws {
        var bar = makeStatusBar()
        try bar.set(hidden: true, animation: .fade, at: 1)
        let again = try bar.set(hidden: true, at: 1.1)
        #expect(
            again == StatusBarEffect(changed: false, styleChanged: false, visibility: nil, nextDeadline: .seconds(1.25))
        )
        #expect(bar.alpha(1.125) == 0.5)
        let sameStyle = try bar.set(style: .lightContent, at: 1.2)
        #expect(sameStyle.changed == false)
        let sameAnimation = try bar.set(animation: .fade, at: 1.2)
        #expect(sameAnimation.changed == false)
    }

    /// The animation is kept for later changes: set alone, it changes the next hide.
    @Test func animationIsKept() throws {
        var bar = makeStatusBar()
        let set = try bar.set(animation: .slide, at: 0)
        #expect(set == StatusBarEffect(changed: true, styleChanged: false, visibility: nil, nextDeadline: nil))
        try bar.set(hidden: true, at: 1)
        #expect(bar.offset(1.125) == -10)
        #expect(bar.animation == .slide)
    }

    /// A style change is reported as such (the overlay restyles); `default` draws as darkContent.
    @Test func styleChange() throws {
        var bar = makeStatusBar()
        let effect = try bar.set(style: .default, at: 1)
        #expect(effect == StatusBarEffect(changed: true, styleChanged: true, visibility: nil, nextDeadline: nil))
        #expect(bar.style == .default)
        #expect(bar.style.drawn == .darkContent)
        #expect(StatusBarStyle.lightContent.drawn == .lightContent)
        #expect(StatusBarStyle.darkContent.drawn == .darkContent)
        #expect(StatusBarStyle.allCases.map(\.rawValue) == ["default", "lightContent", "darkContent"])
        #expect(StatusBarAnimation.allCases.map(\.rawValue) == ["fade", "slide", "none"])
    }

    /// The splash screen that shows the bar on dismissal: hidden at launch, then a fade in.
    @Test func splashScreenDismissal() throws {
        var bar = makeStatusBar { $0.hiddenAtLaunch = true }
        #expect(bar.holdsOverlay)
        try bar.set(hidden: false, animation: .fade, at: 0.5)
        #expect(bar.holdsOverlay == false)
        #expect(bar.alpha(0.625) == 0.5)
        let shown = bar.snapshot(at: .seconds(0.75), orientation: .portrait, device: .ipad)
        #expect(shown.alpha == 1)
        #expect(shown.animation == nil)
        #expect(shown.hidden == false)
    }

    /// The bar's frame is the overlay's frame (MODEL §1), for every device and orientation.
    @Test(arguments: [
        ("iphone", Orientation.portrait, Rect(x: 0, y: 0, width: 320, height: 20)),
        ("iphone", .portraitUpsideDown, Rect(x: 0, y: 460, width: 320, height: 20)),
        ("iphone", .landscapeLeft, Rect(x: 0, y: 0, width: 20, height: 480)),
        ("iphone", .landscapeRight, Rect(x: 300, y: 0, width: 20, height: 480)),
        ("iphone-notch", .portrait, Rect(x: 0, y: 0, width: 375, height: 44)),
        ("iphone-notch", .portraitUpsideDown, Rect(x: 0, y: 768, width: 375, height: 44)),
        ("iphone-notch", .landscapeLeft, Rect(x: 0, y: 0, width: 44, height: 812)),
        ("iphone-notch", .landscapeRight, Rect(x: 331, y: 0, width: 44, height: 812)),
        ("ipad", .portrait, Rect(x: 0, y: 0, width: 768, height: 20)),
        ("ipad", .portraitUpsideDown, Rect(x: 0, y: 1004, width: 768, height: 20)),
        ("ipad", .landscapeLeft, Rect(x: 0, y: 0, width: 20, height: 1024)),
        ("ipad", .landscapeRight, Rect(x: 748, y: 0, width: 20, height: 1024)),
    ])
    func frames(device: String, orientation: Orientation, frame: Rect) throws {
        let profile = try #require(DeviceProfile.builtIn.first { $0.name == device })
        let bar = makeStatusBar()
        #expect(bar.frame(orientation: orientation, device: profile) == frame)
        #expect(bar.snapshot(at: .zero, orientation: orientation, device: profile).frame == frame)
    }

    /// A slide keeps its fraction when the bar's height changes with the device; a hidden bar that
    /// slid out rests at the new −h.
    @Test func deviceChangeDuringSlide() throws {
        var bar = makeStatusBar()
        try bar.set(hidden: true, animation: .slide, at: 0)
        #expect(bar.snapshot(at: .seconds(0.125), orientation: .portrait, device: .ipad).offset == -10)
        let notch = bar.snapshot(at: .seconds(0.125), orientation: .landscapeLeft, device: .iphoneNotch)
        #expect(notch.offset == -22)
        #expect(notch.animation == .contentOffset(from: 0, to: -44, start: 0, duration: 0.25))
        #expect(notch.frame == Rect(x: 0, y: 0, width: 44, height: 812))
        #expect(bar.snapshot(at: .seconds(1), orientation: .portrait, device: .iphoneNotch).offset == -44)
    }

    /// The snapshot carries every member of `statusBar`, and never shows an animation past its end.
    @Test func snapshot() throws {
        var bar = makeStatusBar()
        try bar.set(style: .darkContent, hidden: true, animation: .fade, at: 1)
        let running = bar.snapshot(at: .seconds(1.05), orientation: .portrait, device: .ipad)
        #expect(
            running
                == StatusBarSnapshot(
                    style: .darkContent, hidden: true, alpha: 0.8, offset: 0,
                    frame: Rect(x: 0, y: 0, width: 768, height: 20),
                    animation: .alpha(from: 1, to: 0, start: 1, duration: 0.25), curve: .linear,
                    styleFrom: "application", hiddenFrom: "application"))
        let ended = bar.snapshot(at: .seconds(1.25), orientation: .portrait, device: .ipad)
        #expect(ended.animation == nil)
        #expect(ended.alpha == 0)
        // Never before the latest event.
        #expect(bar.snapshot(at: .seconds(0), orientation: .portrait, device: .ipad).alpha == 1)
    }
}
