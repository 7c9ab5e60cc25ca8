import Testing

@testable import OverlayEngine

/// One screen of §10's table in one orientation, with the numbers worked by hand: L, s', the
/// window's height Hw of each presentation, and the pill's frame at rest for a title narrower
/// than its minimum width (w = 200, x = round((L − 200)/2), y = s' + a).
struct PresentedScreen: Sendable, CustomTestStringConvertible {
    var device: DeviceProfile
    var orientation: Orientation
    var length: Double
    var safeArea: Double
    /// c of `fullWidth`: 38.66 when s' ≥ 54, else 44.
    var content: Double
    var statusBar: Double
    var fullWidth: Double
    var pill: Double
    /// What `auto` is on this screen.
    var auto: Presentation
    var pillFrame: Rect

    var testDescription: String { "\(device.name) \(orientation)" }

    func height(_ presentation: Presentation) -> Double {
        switch presentation {
        case .statusBar: statusBar
        case .fullWidth: fullWidth
        case .pill: pill
        case .auto: height(auto)
        }
    }

    /// §1's window frame with h replaced by Hw.
    func frame(_ height: Double) -> Rect {
        switch orientation {
        case .portrait: Rect(x: 0, y: 0, width: device.width, height: height)
        case .landscapeRight: Rect(x: device.width - height, y: 0, width: height, height: device.height)
        case .landscapeLeft: Rect(x: 0, y: 0, width: height, height: device.height)
        case .portraitUpsideDown: Rect(x: 0, y: device.height - height, width: device.width, height: height)
        }
    }

    static func pill(_ x: Double, _ y: Double) -> Rect { Rect(x: x, y: y, width: 200, height: 50) }

    /// Every built-in device in portrait and in landscapeRight (s' = 0 with a cutout, h without).
    static let all: [PresentedScreen] = [
        .init(
            device: .iphone, orientation: .portrait, length: 320, safeArea: 20, content: 44, statusBar: 20,
            fullWidth: 20 + 44, pill: 20 + 3 + 50, auto: .statusBar, pillFrame: pill(60, 23)),
        .init(
            device: .iphone, orientation: .landscapeRight, length: 480, safeArea: 20, content: 44, statusBar: 20,
            fullWidth: 20 + 44, pill: 20 + 3 + 50, auto: .statusBar, pillFrame: pill(140, 23)),
        .init(
            device: .iphoneSE, orientation: .portrait, length: 375, safeArea: 20, content: 44, statusBar: 20,
            fullWidth: 20 + 44, pill: 20 + 3 + 50, auto: .statusBar, pillFrame: pill(88, 23)),
        .init(
            device: .iphoneSE, orientation: .landscapeRight, length: 667, safeArea: 20, content: 44, statusBar: 20,
            fullWidth: 20 + 44, pill: 20 + 3 + 50, auto: .statusBar, pillFrame: pill(234, 23)),
        .init(
            device: .iphoneNotch, orientation: .portrait, length: 375, safeArea: 44, content: 44, statusBar: 44,
            fullWidth: 44 + 44, pill: 44 - 7 + 50, auto: .pill, pillFrame: pill(88, 37)),
        .init(
            device: .iphoneNotch, orientation: .landscapeRight, length: 812, safeArea: 0, content: 44,
            statusBar: 44, fullWidth: 0 + 44, pill: 0 + 3 + 50, auto: .pill, pillFrame: pill(306, 3)),
        .init(
            device: .iphone14, orientation: .portrait, length: 390, safeArea: 47, content: 44, statusBar: 47,
            fullWidth: 47 + 44, pill: 47 - 7 + 50, auto: .pill, pillFrame: pill(95, 40)),
        .init(
            device: .iphone14, orientation: .landscapeRight, length: 844, safeArea: 0, content: 44, statusBar: 47,
            fullWidth: 0 + 44, pill: 0 + 3 + 50, auto: .pill, pillFrame: pill(322, 3)),
        .init(
            device: .iphone15Pro, orientation: .portrait, length: 393, safeArea: 59, content: 38.66,
            statusBar: 54, fullWidth: 59 + 38.66, pill: 59 + 0 + 50, auto: .pill, pillFrame: pill(97, 59)),
        .init(
            device: .iphone15Pro, orientation: .landscapeRight, length: 852, safeArea: 0, content: 44,
            statusBar: 54, fullWidth: 0 + 44, pill: 0 + 3 + 50, auto: .pill, pillFrame: pill(326, 3)),
        .init(
            device: .iphone16Pro, orientation: .portrait, length: 402, safeArea: 62, content: 38.66,
            statusBar: 54, fullWidth: 62 + 38.66, pill: 62 + 0 + 50, auto: .pill, pillFrame: pill(101, 62)),
        .init(
            device: .iphone16Pro, orientation: .landscapeRight, length: 874, safeArea: 0, content: 44,
            statusBar: 54, fullWidth: 0 + 44, pill: 0 + 3 + 50, auto: .pill, pillFrame: pill(337, 3)),
        .init(
            device: .ipad, orientation: .portrait, length: 768, safeArea: 20, content: 44, statusBar: 20,
            fullWidth: 20 + 44, pill: 20 + 3 + 50, auto: .statusBar, pillFrame: pill(284, 23)),
        .init(
            device: .ipad, orientation: .landscapeRight, length: 1024, safeArea: 20, content: 44, statusBar: 20,
            fullWidth: 20 + 44, pill: 20 + 3 + 50, auto: .statusBar, pillFrame: pill(412, 23)),
        .init(
            device: .ipadPro11, orientation: .portrait, length: 834, safeArea: 24, content: 44, statusBar: 24,
            fullWidth: 24 + 44, pill: 24 - 7 + 50, auto: .statusBar, pillFrame: pill(317, 17)),
        .init(
            device: .ipadPro11, orientation: .landscapeRight, length: 1194, safeArea: 24, content: 44,
            statusBar: 24, fullWidth: 24 + 44, pill: 24 - 7 + 50, auto: .statusBar, pillFrame: pill(497, 17)),
    ]
}

/// §10's presentations through the engine's snapshot: on every built-in device, in portrait and
/// in landscape, the window's height Hw, its frame (§1's with h replaced by Hw), the hidden
/// contentOffset −Hw, the slide from −Hw and back, and the label's and pill's frames at rest.
@Suite("Presentations in the engine (§10)")
struct PresentationEngineTests {
    static func engine(
        _ screen: PresentedScreen, _ presentation: Presentation,
        _ configure: (inout EngineConfiguration) -> Void = { _ in }
    ) -> OverlayEngine {
        makeEngine {
            $0.device = screen.device
            $0.orientation = screen.orientation
            $0.presentation = presentation
            $0.text = .bySevenAndSix
            configure(&$0)
        }
    }

    /// Hidden, the window has its frame and the content sits at −Hw; an `info` message slides in
    /// from −Hw over 0.25 s, rests at 0 with the presentation's frames, slides back to −Hw from
    /// 2.75 and is hidden at 3.0. The presentation reported is the one in effect, never `auto`.
    @Test(arguments: PresentedScreen.all, Presentation.allCases)
    func windowAndSlide(_ screen: PresentedScreen, _ presentation: Presentation) throws {
        var engine = Self.engine(screen, presentation)
        let inEffect = presentation == .auto ? screen.auto : presentation
        let hw = screen.height(presentation)
        #expect(engine.windowHeight == hw)
        #expect(engine.presentationInEffect == inEffect)

        let hidden = engine.at(0)
        #expect(hidden.presentation == inEffect)
        #expect(hidden.frame == screen.frame(hw))
        #expect(hidden.contentOffset == -hw)
        #expect(hidden.label == nil && hidden.pill == nil && hidden.subtitle == nil && hidden.accessory == nil)

        try engine.posted(.message("Hello"), at: .seconds(0))
        let start = engine.at(0)
        #expect(start.phase == .showing)
        #expect(start.frame == screen.frame(hw))
        #expect(start.contentOffset == -hw)
        #expect(start.animation == .contentOffset(from: -hw, to: 0, start: 0, duration: 0.25))

        let resting: Rect
        switch inEffect {
        case .statusBar:
            resting = Rect(x: 30, y: 0, width: screen.length - 60, height: screen.device.statusBarHeight)
        case .fullWidth:
            resting = Rect(x: 30, y: screen.safeArea, width: screen.length - 60, height: screen.content)
        default:
            resting = Rect(x: screen.pillFrame.x + 20, y: screen.pillFrame.y, width: 160, height: 50)
        }
        let restingPill = inEffect == .pill ? screen.pillFrame : nil
        // Every content frame is its resting frame with y + contentOffset.
        #expect(
            start.label?.frame == Rect(x: resting.x, y: resting.y + -hw, width: resting.width, height: resting.height))
        #expect(start.pill?.frame == restingPill.map { Rect(x: $0.x, y: $0.y + -hw, width: 200, height: 50) })
        #expect(start.label?.textWidth == 35)
        #expect(start.label?.truncated == false)

        let shown = engine.at(0.25)
        #expect(shown.phase == .visible)
        #expect(shown.contentOffset == 0)
        #expect(shown.label?.frame == resting)
        #expect(shown.pill?.frame == restingPill)
        #expect(shown.pill?.cornerRadius == (inEffect == .pill ? 25 : nil))
        #expect(shown.restingLayout?.windowHeight == hw)

        let leaving = engine.at(2.75)
        #expect(leaving.phase == .hiding)
        #expect(leaving.animation == .contentOffset(from: 0, to: -hw, start: 2.75, duration: 0.25))
        let gone = engine.at(3)
        #expect(gone.phase == .hidden)
        #expect(gone.contentOffset == -hw)
        #expect(gone.frame == screen.frame(hw))
    }

    /// The other two orientations put the taller window where §1's table says: upside down at the
    /// bottom edge, landscapeLeft at the left.
    @Test func otherOrientations() {
        let notch = PresentedScreen.all[5]
        var left = notch
        left.orientation = .landscapeLeft
        #expect(Self.engine(left, .pill).at(0).frame == Rect(x: 0, y: 0, width: 53, height: 812))
        var upsideDown = PresentedScreen.all[8]
        upsideDown.orientation = .portraitUpsideDown
        let island = Self.engine(upsideDown, .fullWidth).at(0)
        #expect(island.frame == Rect(x: 0, y: 852 - (59 + 38.66), width: 393, height: 59 + 38.66))
        #expect(island.contentOffset == -(59 + 38.66))
    }

    /// fullWidth under the island: c = 38.66 from s' = 59. With a subtitle the label is 16 high at
    /// s' + (c − 31)/2 and the subtitle 17 below it, 14 high; the accessory sits in the left inset
    /// beside the label; the progress bar spans L at the content area's bottom, top or centre.
    @Test(arguments: ProgressBarPosition.allCases)
    func fullWidthPastTheIsland(_ position: ProgressBarPosition) throws {
        var engine = Self.engine(PresentedScreen.all[8], .fullWidth) { $0.progressBarPosition = position }
        try engine.posted(
            .message("Uploading", kind: .progress, subtitle: "2 of 8", icon: "⬆️", progress: 0.25), at: .seconds(0))
        let shown = engine.at(0.25)
        let labelY = 59 + (38.66 - 31) / 2
        #expect(shown.label?.frame == Rect(x: 30, y: labelY, width: 333, height: 16))
        #expect(shown.subtitle?.frame == Rect(x: 30, y: labelY + 17, width: 333, height: 14))
        #expect(shown.subtitle?.text == "2 of 8")
        #expect(shown.subtitle?.textWidth == 36)
        #expect(
            shown.accessory == Accessory(kind: .icon, icon: "⬆️", frame: Rect(x: 9, y: labelY, width: 16, height: 16)))
        // y = s' + c − p, s', s' + (c − p)/2: about 95.66, 59 and 77.33.
        let (barY, about): (Double, Double)
        switch position {
        case .bottom: (barY, about) = (59 + 38.66 - 2, 95.66)
        case .top: (barY, about) = (59, 59)
        case .center: (barY, about) = (59 + (38.66 - 2) / 2, 77.33)
        }
        #expect(isClose(barY, about))
        #expect(shown.progressBar?.frame == Rect(x: 0, y: barY, width: 98.25, height: 2))

        // Halfway through the show every frame is its resting frame moved by contentOffset.
        let moving = engine.at(0.125)
        let offset = -(59 + 38.66) + (59 + 38.66) * 0.5
        #expect(moving.contentOffset == offset)
        #expect(moving.label?.frame.y == labelY + offset)
        #expect(moving.subtitle?.frame.y == labelY + 17 + offset)
        #expect(moving.accessory?.frame.y == labelY + offset)
        #expect(moving.progressBar?.frame.y == barY + offset)
    }

    /// fullWidth elsewhere: c = 44. Without a subtitle the label fills the content area and the
    /// accessory (a `sending` spinner) is centred on it; a bar narrower than two caps is two caps.
    @Test func fullWidthWithoutTheIsland() throws {
        var engine = Self.engine(PresentedScreen.all[6], .fullWidth) { $0.progressBarCapWidth = 3 }
        try engine.posted(.message("Sending", kind: .sending, progress: 0.001), at: .seconds(0))
        let shown = engine.at(0.25)
        #expect(shown.label?.frame == Rect(x: 30, y: 47, width: 330, height: 44))
        #expect(shown.subtitle == nil)
        #expect(
            shown.accessory == Accessory(kind: .activity, icon: nil, frame: Rect(x: 9, y: 61, width: 16, height: 16)))
        #expect(shown.progressBar?.frame == Rect(x: 0, y: 89, width: 6, height: 2))

        // In landscape s' = 0: the content area starts at the top edge.
        var landscape = Self.engine(PresentedScreen.all[7], .fullWidth) { $0.progressBarPosition = .top }
        try landscape.posted(.message("Uploading", kind: .progress, subtitle: "2 of 8", progress: 0.5), at: .seconds(0))
        let side = landscape.at(0.25)
        #expect(side.label?.frame == Rect(x: 30, y: 6.5, width: 784, height: 16))
        #expect(side.subtitle?.frame == Rect(x: 30, y: 23.5, width: 784, height: 14))
        #expect(side.progressBar?.frame == Rect(x: 0, y: 0, width: 422, height: 2))

        var pad = Self.engine(PresentedScreen.all[12], .fullWidth) { $0.progressBarPosition = .center }
        try pad.posted(.message("Uploading", kind: .progress, subtitle: "2 of 8", progress: 1), at: .seconds(0))
        let wide = pad.at(0.25)
        #expect(wide.label?.frame == Rect(x: 30, y: 26.5, width: 708, height: 16))
        #expect(wide.subtitle?.frame == Rect(x: 30, y: 43.5, width: 708, height: 14))
        #expect(wide.progressBar?.frame == Rect(x: 0, y: 41, width: 768, height: 2))
    }

    /// A presentation change during the show keeps the slide's fraction: the animation's ends are
    /// rescaled by the new Hw (pill 109 → fullWidth 97.66 → statusBar 54 on the iPhone 15 Pro).
    @Test func presentationChangeDuringASlide() throws {
        var engine = Self.engine(PresentedScreen.all[8], .pill)
        try engine.posted(.message("Hello"), at: .seconds(0))
        #expect(engine.at(0.1).contentOffset == -109 + 109 * 0.4)
        let version = engine.version
        #expect(engine.changePresentation(to: .fullWidth, at: .seconds(0.1)).value)
        #expect(engine.version == version + 1)
        let changed = engine.at(0.1)
        #expect(changed.presentation == .fullWidth)
        #expect(changed.frame == Rect(x: 0, y: 0, width: 393, height: 59 + 38.66))
        #expect(changed.animation == .contentOffset(from: -(59 + 38.66), to: 0, start: 0, duration: 0.25))
        #expect(isClose(changed.contentOffset / (59 + 38.66), -0.6))
        #expect(changed.pill == nil)

        #expect(engine.changePresentation(to: .statusBar, at: .seconds(0.15)).value)
        let bar = engine.at(0.15)
        #expect(bar.animation == .contentOffset(from: -54, to: 0, start: 0, duration: 0.25))
        #expect(isClose(bar.contentOffset, -54 * 0.4))
        // The same presentation again changes nothing.
        let same = engine.changePresentation(to: .statusBar, at: .seconds(0.2))
        #expect(!same.value)
        #expect(engine.version == version + 2)
        #expect(engine.at(0.25).contentOffset == 0)
    }

    /// A device change during the hide keeps the hide's fraction too: the iPhone 15 Pro's pill
    /// (Hw 109) becomes the iPad's status bar (auto, Hw 20).
    @Test func deviceChangeDuringAHide() throws {
        var engine = Self.engine(PresentedScreen.all[8], .auto)
        try engine.posted(.message("Hello"), at: .seconds(0))
        #expect(engine.at(2.75).animation == .contentOffset(from: 0, to: -109, start: 2.75, duration: 0.25))
        #expect(engine.at(2.85).contentOffset == 0 + (-109 - 0) * 0.4)
        #expect(engine.changeDevice(to: .ipad, at: .seconds(2.85)).value)
        let changed = engine.at(2.85)
        #expect(changed.presentation == .statusBar)
        #expect(changed.frame == Rect(x: 0, y: 0, width: 768, height: 20))
        #expect(changed.animation == .contentOffset(from: 0, to: -20, start: 2.75, duration: 0.25))
        #expect(isClose(changed.contentOffset, -8))
        #expect(changed.label?.frame == Rect(x: 30, y: changed.contentOffset, width: 708, height: 20))
        #expect(engine.at(3).phase == .hidden)
        #expect(engine.at(3).contentOffset == -20)
    }

    /// A status bar that slides out takes a taller window with it by Hw, not by its own h: the
    /// pill under the island (Hw = 109) slides 0 → −109 beside the bar's 0.25 s and is hidden at
    /// −109, with no jump at the end; the bar itself moves by its h = 54.
    @Test func besideASlidingStatusBar() throws {
        var engine = Self.engine(PresentedScreen.all[8], .auto)
        try engine.posted(.message("Hello"), at: .seconds(0))
        try engine.setBar(hidden: true, animation: .slide, at: 1)
        let hiding = engine.at(1)
        #expect(hiding.phase == .hiding)
        #expect(hiding.animation == .contentOffset(from: 0, to: -109, start: 1, duration: 0.25))
        #expect(engine.at(1.125).contentOffset == -54.5)
        #expect(engine.at(1.125).pill?.frame.y == 59 - 54.5)
        #expect(engine.at(1.249_999_999).contentOffset < -108.9)
        let hidden = engine.at(1.25)
        #expect(hidden.phase == .hidden)
        #expect(hidden.contentOffset == -109)
        #expect(hidden.statusBar.offset == -54)
    }
}
