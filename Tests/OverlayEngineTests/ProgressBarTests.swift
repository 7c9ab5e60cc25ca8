import Testing

@testable import OverlayEngine

/// The progress bar (MODEL §1): height p = 2 at the bottom, top or centre of the bar, filled
/// L × progress, never narrower than two caps while progress > 0. On the ipad: L = 768, h = 20.
@Suite("Progress bar (MODEL §1)")
struct ProgressBarTests {
    /// The overlay shown with `progress` at 0.25 s, when the show has ended.
    func shown(
        progress: Double?, kind: MessageKind? = nil, _ configure: (inout EngineConfiguration) -> Void = { _ in }
    )
        throws -> OverlaySnapshot
    {
        var engine = makeEngine(configure)
        // A nil progress is left out (not sent as null).
        try engine.posted(.message("Downloading", kind: kind, progress: progress.map { .some($0) }), at: .seconds(0))
        return engine.overlay(at: .seconds(0.25))
    }

    /// At the bottom by default: (0, h − p, L × progress, p).
    @Test func bottom() throws {
        let overlay = try shown(progress: 0.5)
        #expect(EngineConfiguration().progressBarPosition == .bottom)
        #expect(overlay.progressBar?.frame == Rect(x: 0, y: 18, width: 384, height: 2))
        #expect(overlay.progressBar?.progress == 0.5)
        #expect(overlay.progressBar?.position == .bottom)
    }

    /// At the top: y = contentOffset.
    @Test func top() throws {
        let overlay = try shown(progress: 0.5) { $0.progressBarPosition = .top }
        #expect(overlay.progressBar?.frame == Rect(x: 0, y: 0, width: 384, height: 2))
        #expect(overlay.progressBar?.position == .top)
    }

    /// In the centre: y = contentOffset + (h − p) / 2.
    @Test func center() throws {
        let overlay = try shown(progress: 0.5) { $0.progressBarPosition = .center }
        #expect(overlay.progressBar?.frame == Rect(x: 0, y: 9, width: 384, height: 2))
    }

    /// The bar slides with the content: at contentOffset −10, bottom y = 8, top y = −10, centre y = −1.
    @Test(arguments: [(ProgressBarPosition.bottom, 8.0), (.top, -10.0), (.center, -1.0)])
    func slidesWithContent(position: ProgressBarPosition, y: Double) throws {
        var engine = makeEngine { $0.progressBarPosition = position }
        try engine.posted(.message("Downloading", kind: .progress, progress: 0.25), at: .seconds(0))
        #expect(engine.overlay(at: .seconds(0.125)).progressBar?.frame == Rect(x: 0, y: y, width: 192, height: 2))
    }

    /// On the notched iPhone (h = 44, L = 375): bottom y = 42, centre y = 21.
    @Test func tallerBar() throws {
        let bottom = try shown(progress: 0.2) {
            $0.device = .iphoneNotch
            $0.presentation = .statusBar
        }
        let center = try shown(progress: 0.2) {
            $0.device = .iphoneNotch
            $0.presentation = .statusBar
            $0.progressBarPosition = .center
        }
        #expect(bottom.progressBar?.frame == Rect(x: 0, y: 42, width: 75, height: 2))
        #expect(center.progressBar?.frame == Rect(x: 0, y: 21, width: 75, height: 2))
    }

    /// The bar's height is configurable.
    @Test func configuredHeight() throws {
        let overlay = try shown(progress: 1) { $0.progressBarHeight = 4 }
        #expect(overlay.progressBar?.frame == Rect(x: 0, y: 16, width: 768, height: 4))
    }

    /// With capWidth 5, a tiny progress still fills two caps (10), while progress 0 fills nothing.
    @Test func capWidthMinimum() throws {
        let tiny = try shown(progress: 0.001) { $0.progressBarCapWidth = 5 }
        let zero = try shown(progress: 0, kind: .progress) { $0.progressBarCapWidth = 5 }
        let half = try shown(progress: 0.5) { $0.progressBarCapWidth = 5 }
        #expect(tiny.progressBar?.frame.width == 10)
        #expect(zero.progressBar?.frame.width == 0)
        #expect(half.progressBar?.frame.width == 384)
    }

    /// The default capWidth is 0: any progress fills exactly L × progress.
    @Test func defaultCapWidth() throws {
        #expect(EngineConfiguration().progressBarCapWidth == 0)
        let tiny = try shown(progress: 0.001)
        #expect(isClose(tiny.progressBar?.frame.width ?? -1, 0.768))
    }

    /// Two caps wider than the bar fill the bar and no more.
    @Test func fillClampedToBar() throws {
        let overlay = try shown(progress: 0.1) { $0.progressBarCapWidth = 500 }
        #expect(overlay.progressBar?.frame.width == 768)
    }

    /// Only a message with a progress has a bar; a progress message without one starts at 0.
    @Test func onlyWithProgress() throws {
        let plain = try shown(progress: nil)
        let progressKind = try shown(progress: nil, kind: .progress)
        #expect(plain.progressBar == nil)
        #expect(
            progressKind.progressBar
                == ProgressBar(progress: 0, position: .bottom, frame: Rect(x: 0, y: 18, width: 0, height: 2)))
    }

    /// Any kind may carry a progress.
    @Test(arguments: MessageKind.allCases)
    func anyKind(kind: MessageKind) throws {
        let overlay = try shown(progress: 0.75, kind: kind)
        #expect(overlay.progressBar?.frame.width == 576)
    }
}
