import OverlayEngine
import Testing

/// The frames of each presentation, worked by hand from the rules (docs/MODEL.md): the window's
/// height, the pill's frame, the label's, the subtitle's, the accessory's and the progress bar's.
@Suite("Presentation layout")
struct PresentationLayoutTests {
    static func layout(
        _ presentation: Presentation, _ device: DeviceProfile, _ orientation: Orientation = .portrait,
        offset: Double = 0, title: Double = 100, subtitle: Double? = nil, accessory: Bool = false,
        progress: Double? = nil
    ) -> PresentationLayout {
        PresentationLayout(
            .init(
                presentation: presentation, device: device, orientation: orientation, inset: 30,
                contentOffset: offset, titleWidth: title, subtitleWidth: subtitle, hasAccessory: accessory,
                progress: progress))
    }

    /// Equal to within a billionth: for the lengths that are not whole (38.66 − 31 is not exact
    /// in binary), so that the test states the number rather than repeat the formula.
    static func close(_ a: Double?, _ b: Double) -> Bool { a.map { abs($0 - b) < 1e-9 } ?? false }

    @Test func autoIsThePillUnderACutout() {
        #expect(Presentation.auto.resolved(on: .iphone15Pro) == .pill)
        #expect(Presentation.auto.resolved(on: .iphoneNotch) == .pill)
        #expect(Presentation.auto.resolved(on: .iphone14) == .pill)
        #expect(Presentation.auto.resolved(on: .ipad) == .statusBar)
        #expect(Presentation.auto.resolved(on: .iphoneSE) == .statusBar)
        #expect(Presentation.fullWidth.resolved(on: .ipad) == .fullWidth)
        #expect(Presentation.allCases.map(\.rawValue) == ["statusBar", "fullWidth", "pill", "auto"])
    }

    /// Hw in every presentation: h; s' + c; s' + a + P.
    @Test func windowHeights() {
        let cases: [(Presentation, DeviceProfile, Orientation, Double)] = [
            (.statusBar, .iphone15Pro, .portrait, 54),
            (.fullWidth, .iphone15Pro, .portrait, 59 + 38.66),
            (.fullWidth, .iphone14, .portrait, 47 + 44),
            (.fullWidth, .ipad, .portrait, 20 + 44),
            (.fullWidth, .iphone15Pro, .landscapeLeft, 0 + 44),
            (.fullWidth, .ipad, .landscapeRight, 20 + 44),
            (.pill, .iphone15Pro, .portrait, 59 + 0 + 50),
            (.pill, .iphone16Pro, .portrait, 62 + 0 + 50),
            (.pill, .iphone14, .portrait, 47 - 7 + 50),
            (.pill, .iphoneNotch, .portrait, 44 - 7 + 50),
            (.pill, .ipad, .portrait, 20 + 3 + 50),
            (.pill, .iphone15Pro, .landscapeLeft, 0 + 3 + 50),
            (.auto, .iphone15Pro, .portrait, 109),
            (.auto, .ipadPro11, .portrait, 24),
        ]
        for (presentation, device, orientation, height) in cases {
            let layout = Self.layout(presentation, device, orientation)
            #expect(Self.close(layout.windowHeight, height), "\(presentation) \(device.name) \(orientation)")
            #expect(
                layout.windowHeight
                    == PresentationLayout.windowHeight(presentation, device: device, orientation: orientation))
        }
    }

    /// A short title: the pill keeps its minimum width, centred (96.5 rounds away from zero).
    @Test func aShortPillUnderTheIsland() {
        let layout = Self.layout(.pill, .iphone15Pro, title: 100, progress: 0.5)
        #expect(layout.pill == Rect(x: 97, y: 59, width: 200, height: 50))
        #expect(layout.label == Rect(x: 117, y: 59, width: 160, height: 50))
        #expect(layout.subtitle == nil)
        #expect(layout.accessory == nil)
        #expect(layout.progressBar == Rect(x: 117, y: 102, width: 80, height: 2))
    }

    /// A long title with a subtitle and an accessory: the pill is as wide as the margins allow,
    /// the group (accessory, gap, text) centred in it and cut to its padding.
    @Test func aWidePillWithEverything() {
        let layout = Self.layout(.pill, .iphone15Pro, title: 300, subtitle: 250, accessory: true)
        #expect(layout.pill == Rect(x: 20, y: 59, width: 353, height: 50))
        #expect(layout.accessory == Rect(x: 40, y: 76, width: 16, height: 16))
        #expect(layout.label == Rect(x: 61, y: 68.5, width: 292, height: 16))
        #expect(layout.subtitle == Rect(x: 61, y: 85.5, width: 292, height: 14))
    }

    /// A group narrower than the pill is centred: T = 150 + 21, w = 211, g = 171.
    @Test func aCentredGroup() {
        let layout = Self.layout(.pill, .iphone16Pro, title: 150, accessory: true)
        #expect(layout.pill == Rect(x: 96, y: 62, width: 211, height: 50))
        #expect(layout.accessory == Rect(x: 116, y: 79, width: 16, height: 16))
        #expect(layout.label == Rect(x: 137, y: 62, width: 150, height: 50))
    }

    /// Under a notch the pill rises 7 into it; on a plain screen it sits 3 below the bar; the
    /// subtitle's width counts when it is the wider text.
    @Test func pillsOnOtherScreens() {
        let notch = Self.layout(.pill, .iphone14, title: 120, subtitle: 180)
        #expect(notch.pill == Rect(x: 85, y: 40, width: 220, height: 50))
        let pad = Self.layout(.pill, .ipad, title: 500)
        #expect(pad.pill == Rect(x: 114, y: 23, width: 540, height: 50))
        let landscape = Self.layout(.pill, .iphone15Pro, .landscapeLeft, title: 100)
        #expect(landscape.pill == Rect(x: 326, y: 3, width: 200, height: 50))
    }

    /// The content offset moves everything: hidden at −Hw, the pill's bottom at the top edge.
    @Test func thePillSlides() {
        let hidden = Self.layout(.pill, .iphone15Pro, offset: -109, title: 100)
        #expect(hidden.pill == Rect(x: 97, y: -50, width: 200, height: 50))
        #expect(hidden.label.y == -50)
        let halfway = Self.layout(.pill, .iphone15Pro, offset: -54.5, title: 100, subtitle: 10)
        #expect(halfway.pill?.y == 4.5)
        #expect(halfway.subtitle?.y == 31)
    }

    @Test func fullWidthPastTheIsland() {
        let layout = Self.layout(.fullWidth, .iphone15Pro, subtitle: 50, accessory: true, progress: 1)
        #expect(Self.close(layout.windowHeight, 97.66))
        #expect(Self.close(layout.label.y, 62.83))
        #expect(layout.label.x == 30 && layout.label.width == 333 && layout.label.height == 16)
        #expect(Self.close(layout.subtitle?.y, 79.83))
        #expect(layout.subtitle?.height == 14)
        #expect(Self.close(layout.accessory?.y, 62.83))
        #expect(layout.accessory?.x == 9)
        #expect(Self.close(layout.progressBar?.y, 95.66))
        #expect(layout.progressBar?.width == 393)
        #expect(layout.pill == nil)
    }

    @Test func fullWidthUnderANotch() {
        let layout = Self.layout(.fullWidth, .iphone14, offset: -10, progress: 0.25)
        #expect(layout.label == Rect(x: 30, y: 37, width: 330, height: 44))
        #expect(layout.subtitle == nil)
        #expect(layout.progressBar == Rect(x: 0, y: 79, width: 97.5, height: 2))
    }

    /// The seed's window: §1's label, the accessory in the left inset, no subtitle.
    @Test func statusBarKeepsTheSeedFrames() {
        let layout = Self.layout(.statusBar, .ipad, offset: -5, subtitle: 40, accessory: true, progress: 0.5)
        #expect(layout.windowHeight == 20)
        #expect(layout.label == Rect(x: 30, y: -5, width: 708, height: 20))
        #expect(layout.accessory == Rect(x: 9, y: -3, width: 16, height: 16))
        #expect(layout.subtitle == nil)
        #expect(layout.progressBar == Rect(x: 0, y: 13, width: 384, height: 2))
        let landscape = Self.layout(.statusBar, .iphone15Pro, .landscapeRight)
        #expect(landscape.label == Rect(x: 30, y: 0, width: 792, height: 54))
    }

    /// Two caps at least while progress is above 0, the track at most, in the pill too.
    @Test func progressCaps() {
        var input = PresentationLayout.Input(
            presentation: .pill, device: .iphone15Pro, orientation: .portrait, inset: 30, contentOffset: 0,
            titleWidth: 100, progress: 0.01)
        input.progressBarCapWidth = 4
        input.progressBarPosition = .top
        #expect(PresentationLayout(input).progressBar == Rect(x: 117, y: 64, width: 8, height: 2))
        input.progress = 0
        #expect(PresentationLayout(input).progressBar?.width == 0)
        input.progressBarPosition = .center
        input.progress = 1
        #expect(PresentationLayout(input).progressBar == Rect(x: 117, y: 83, width: 160, height: 2))
    }
}
