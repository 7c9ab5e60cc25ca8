import Testing

@testable import OverlayEngine

/// The pill through the engine's snapshot, with texts measured 7 points a character in the title
/// and 6 in the subtitle: w = round(max(200, min(L − 40, T + 40))), x = round(max(20, (L − w)/2)),
/// halves away from zero; the group of accessory and text centred in it. On the iPhone 15 Pro in
/// portrait L = 393 and the pill's top is at y = 59 (s' = 59, a = 0).
@Suite("The pill in the engine (§10)")
struct PillEngineTests {
    static func engine(
        _ device: DeviceProfile = .iphone15Pro, _ configure: (inout EngineConfiguration) -> Void = { _ in }
    ) -> OverlayEngine {
        makeEngine {
            $0.device = device
            $0.presentation = .pill
            $0.text = .bySevenAndSix
            configure(&$0)
        }
    }

    /// The overlay once `input` is fully shown (posted at 0, shown at 0.25).
    static func shown(
        _ input: MessageInput, _ device: DeviceProfile = .iphone15Pro,
        _ configure: (inout EngineConfiguration) -> Void = { _ in }
    ) throws -> OverlaySnapshot {
        var engine = engine(device, configure)
        try engine.posted(input, at: .seconds(0))
        return engine.at(0.25)
    }

    static func text(_ count: Int) -> String { String(repeating: "a", count: count) }

    /// A short title keeps the minimum width, centred: 96.5 rounds to 97 (away from zero); the
    /// label is the pill less its padding. With an icon, T = 35 + 21 and the group is centred.
    @Test func aShortTitle() throws {
        let plain = try Self.shown(.message("Hello"))
        #expect(plain.pill?.frame == Rect(x: 97, y: 59, width: 200, height: 50))
        #expect(plain.label?.frame == Rect(x: 117, y: 59, width: 160, height: 50))
        #expect(plain.label?.textWidth == 35)
        #expect(plain.accessory == nil)
        #expect(plain.subtitle == nil)

        let icon = try Self.shown(.message("Hello", icon: "📷"))
        #expect(icon.pill?.frame == Rect(x: 97, y: 59, width: 200, height: 50))
        #expect(icon.accessory == Accessory(kind: .icon, icon: "📷", frame: Rect(x: 169, y: 76, width: 16, height: 16)))
        #expect(icon.label?.frame == Rect(x: 190, y: 59, width: 35, height: 50))
        #expect(icon.label?.truncated == false)
    }

    /// A title of 210 points: w = 250, x = round(71.5) = 72. With an accessory T = 231, w = 271,
    /// x = 61, g = 231: the accessory at 81, the label at 102, 210 wide (not truncated).
    @Test func aTitleThatSetsTheWidth() throws {
        let plain = try Self.shown(.message(Self.text(30)))
        #expect(plain.pill?.frame == Rect(x: 72, y: 59, width: 250, height: 50))
        #expect(plain.label?.frame == Rect(x: 92, y: 59, width: 210, height: 50))
        #expect(plain.label?.truncated == false)

        let spinner = try Self.shown(.message(Self.text(30), kind: .sending))
        #expect(spinner.pill?.frame == Rect(x: 61, y: 59, width: 271, height: 50))
        #expect(
            spinner.accessory == Accessory(kind: .activity, icon: nil, frame: Rect(x: 81, y: 76, width: 16, height: 16))
        )
        #expect(spinner.label?.frame == Rect(x: 102, y: 59, width: 210, height: 50))
        #expect(spinner.label?.textWidth == 210)
        #expect(spinner.label?.truncated == false)
    }

    /// A title of 420 points is capped at L − 40 = 353, x = 20: the label is truncated. With a
    /// spinner g = min(441, 313): the accessory at 20 + 20 = 40, the label at 61, 292 wide.
    @Test func aLongTitleIsCapped() throws {
        let plain = try Self.shown(.message(Self.text(60)))
        #expect(plain.pill?.frame == Rect(x: 20, y: 59, width: 353, height: 50))
        #expect(plain.label?.frame == Rect(x: 40, y: 59, width: 313, height: 50))
        #expect(plain.label?.textWidth == 420)
        #expect(plain.label?.truncated == true)

        let spinner = try Self.shown(.message(Self.text(60), kind: .sending, icon: "📷"))
        #expect(spinner.pill?.frame == Rect(x: 20, y: 59, width: 353, height: 50))
        // A sending message shows its spinner, not its icon.
        #expect(
            spinner.accessory == Accessory(kind: .activity, icon: nil, frame: Rect(x: 40, y: 76, width: 16, height: 16))
        )
        #expect(spinner.label?.frame == Rect(x: 61, y: 59, width: 292, height: 50))
        #expect(spinner.label?.truncated == true)
        // The window does not depend on the text.
        #expect(spinner.frame == Rect(x: 0, y: 0, width: 393, height: 109))
    }

    /// The wider of the two texts sets T: a 240-point subtitle under a 14-point title gives
    /// w = 280, x = round(56.5) = 57; the label is 16 high at y + 9.5, the subtitle 14 high at
    /// y + 26.5, both 240 wide at 77.
    @Test func aWiderSubtitle() throws {
        let shown = try Self.shown(.message("Hi", subtitle: Self.text(40)))
        #expect(shown.pill?.frame == Rect(x: 57, y: 59, width: 280, height: 50))
        #expect(shown.label?.frame == Rect(x: 77, y: 68.5, width: 240, height: 16))
        #expect(shown.subtitle?.frame == Rect(x: 77, y: 85.5, width: 240, height: 14))
        #expect(shown.label?.textWidth == 14)
        #expect(shown.subtitle?.textWidth == 240)
        #expect(shown.subtitle?.truncated == false)

        // A subtitle wider than the pill allows is truncated; the accessory is centred on P.
        let long = try Self.shown(.message("Hi", subtitle: Self.text(60), icon: "⭐"))
        #expect(long.pill?.frame == Rect(x: 20, y: 59, width: 353, height: 50))
        #expect(long.accessory?.frame == Rect(x: 40, y: 76, width: 16, height: 16))
        #expect(long.label?.frame == Rect(x: 61, y: 68.5, width: 292, height: 16))
        #expect(long.subtitle?.frame == Rect(x: 61, y: 85.5, width: 292, height: 14))
        #expect(long.subtitle?.textWidth == 360)
        #expect(long.subtitle?.truncated == true)
        #expect(long.label?.truncated == false)
    }

    /// Halves round away from zero in both w and x: 162.5 + 40 = 202.5 gives 203 (not 202), and on
    /// the iPad (L = 768, y = 20 + 3) (768 − 203)/2 = 282.5 gives 283 (not 282).
    @Test func halvesRoundAwayFromZero() throws {
        let halves = TextMetrics(name: "test 6.5") { text, _ in Double(text.count) * 6.5 }
        let island = try Self.shown(.message(Self.text(25)), .iphone15Pro) { $0.text = halves }
        #expect(island.label?.textWidth == 162.5)
        #expect(island.pill?.frame == Rect(x: 95, y: 59, width: 203, height: 50))
        let pad = try Self.shown(.message(Self.text(25)), .ipad) { $0.text = halves }
        #expect(pad.pill?.frame == Rect(x: 283, y: 23, width: 203, height: 50))
        #expect(pad.label?.frame == Rect(x: 303, y: 23, width: 163, height: 50))
        #expect(pad.label?.truncated == false)
    }

    /// The pill's top is s' + a: under a notch 7 higher, in landscape (s' = 0) and on a plain
    /// screen 3 lower.
    @Test func thePillsTop() throws {
        #expect(
            try Self.shown(.message("Hello"), .iphoneNotch).pill?.frame == Rect(x: 88, y: 37, width: 200, height: 50))
        #expect(try Self.shown(.message("Hello"), .iphone14).pill?.frame == Rect(x: 95, y: 40, width: 200, height: 50))
        #expect(try Self.shown(.message("Hello"), .iphone).pill?.frame == Rect(x: 60, y: 23, width: 200, height: 50))
        #expect(
            try Self.shown(.message("Hello"), .ipadPro11).pill?.frame == Rect(x: 317, y: 17, width: 200, height: 50))
        let landscape = try Self.shown(.message("Hello")) { $0.orientation = .landscapeLeft }
        #expect(landscape.pill?.frame == Rect(x: 326, y: 3, width: 200, height: 50))
        #expect(landscape.frame == Rect(x: 0, y: 0, width: 53, height: 852))
    }

    /// The progress bar lies inside the pill: x + 20, (w − 40) × progress, 5 from its bottom or
    /// top edge or centred; at least two caps while progress > 0; with corner radius p/2.
    @Test(arguments: ProgressBarPosition.allCases)
    func progressBarInside(_ position: ProgressBarPosition) throws {
        let half = try Self.shown(.message("Hello", kind: .progress, progress: 0.5)) {
            $0.progressBarPosition = position
        }
        let y: Double =
            switch position {
            case .bottom: 59 + 50 - 2 - 5
            case .top: 59 + 5
            case .center: 59 + (50 - 2) / 2
            }
        #expect(half.progressBar?.frame == Rect(x: 117, y: y, width: 80, height: 2))
        #expect(half.progressBar?.position == position)

        let thick = try Self.shown(.message(Self.text(30), kind: .progress, progress: 0.01)) {
            $0.progressBarPosition = position
            $0.progressBarHeight = 4
            $0.progressBarCapWidth = 3
        }
        let thickY: Double =
            switch position {
            case .bottom: 59 + 50 - 4 - 5
            case .top: 59 + 5
            case .center: 59 + (50 - 4) / 2
            }
        // (250 − 40) × 0.01 = 2.1 is less than two caps of 3.
        #expect(thick.progressBar?.frame == Rect(x: 92, y: thickY, width: 6, height: 4))

        let empty = try Self.shown(.message("Hello", kind: .progress, progress: 0)) { $0.progressBarCapWidth = 3 }
        #expect(empty.progressBar?.frame.width == 0)
        let full = try Self.shown(.message(Self.text(60), kind: .progress, progress: 1))
        #expect(full.progressBar?.frame == Rect(x: 40, y: 102, width: 313, height: 2))
    }

    /// While the pill slides, every frame inside it is its resting frame with y + contentOffset:
    /// halfway through the show contentOffset is −54.5.
    @Test func everythingSlidesWithThePill() throws {
        var engine = Self.engine()
        try engine.posted(
            .message("Hello", kind: .progress, subtitle: "sub", icon: "📷", progress: 0.5), at: .seconds(0))
        let resting = engine.at(0.25)
        let moving = engine.at(0.125)
        #expect(moving.contentOffset == -54.5)
        for (rest, now) in [
            (resting.pill?.frame, moving.pill?.frame), (resting.label?.frame, moving.label?.frame),
            (resting.subtitle?.frame, moving.subtitle?.frame), (resting.accessory?.frame, moving.accessory?.frame),
            (resting.progressBar?.frame, moving.progressBar?.frame),
        ] {
            let rest = try #require(rest)
            #expect(now == Rect(x: rest.x, y: rest.y + -54.5, width: rest.width, height: rest.height))
        }
        #expect(moving.restingLayout == resting.restingLayout)
        #expect(engine.at(0).pill?.frame == Rect(x: 97, y: 59 - 109, width: 200, height: 50))
    }

    /// A new text is measured again: a PATCH of the title widens the pill; removing the subtitle
    /// puts the label back across the whole height.
    @Test func aChangedTextIsMeasuredAgain() throws {
        var engine = Self.engine()
        try engine.posted(.message("Hello", subtitle: "sub"), at: .seconds(0))
        #expect(engine.at(0.25).label?.frame == Rect(x: 117, y: 68.5, width: 160, height: 16))
        try engine.patched(1, MessageInput(text: Self.text(30), subtitle: .some(nil)), at: .seconds(1))
        let changed = engine.at(1)
        #expect(changed.message?.subtitle == nil)
        #expect(changed.subtitle == nil)
        #expect(changed.label?.textWidth == 210)
        #expect(changed.pill?.frame == Rect(x: 72, y: 59, width: 250, height: 50))
        #expect(changed.label?.frame == Rect(x: 92, y: 59, width: 210, height: 50))
    }

    /// `pill.height` P sets the window's height, the minimum width max(200, P), the corner radius
    /// P/2 and the accessory's centre.
    @Test func aTallerPill() throws {
        let tall = try Self.shown(.message("Hello", icon: "📷")) { $0.pillHeight = 60 }
        #expect(tall.frame == Rect(x: 0, y: 0, width: 393, height: 59 + 60))
        #expect(tall.pill?.frame == Rect(x: 97, y: 59, width: 200, height: 60))
        #expect(tall.pill?.cornerRadius == 30)
        #expect(tall.accessory?.frame == Rect(x: 169, y: 81, width: 16, height: 16))
        let wide = try Self.shown(.message("Hello")) { $0.pillHeight = 250 }
        #expect(wide.pill?.frame == Rect(x: 72, y: 59, width: 250, height: 250))
    }

    /// A text the pill was sized for fits its label exactly, whatever its width's last bits:
    /// 117.51704545454545 + 21 − 21 is not 117.51704545454545 in binary, but the label is as
    /// wide as the text (g − 21 = min(117.51…, 200 − 40 − 21)), so it is not truncated.
    @Test func aTextThePillWasSizedForIsNotTruncated() throws {
        let width = 117.517_045_454_545_45
        #expect(width + 21 - 21 != width)
        let exact = TextMetrics(name: "test exact") { _, role in role == .title ? width : 97.159_090_909_090_9 }
        let shown = try Self.shown(.message("Photo sent to Anna", subtitle: "3 photos", icon: "📷")) { $0.text = exact }
        #expect(shown.pill?.frame == Rect(x: 97, y: 59, width: 200, height: 50))
        #expect(shown.label?.frame.width == width)
        #expect(shown.label?.truncated == false)
        #expect(shown.subtitle?.frame.width == width)
        #expect(shown.subtitle?.truncated == false)
        #expect(shown.accessory?.frame.x == 97 + (200 - (width + 21)) / 2)
        #expect(shown.label?.frame.x == 97 + (200 - (width + 21)) / 2 + 21)
    }
}
