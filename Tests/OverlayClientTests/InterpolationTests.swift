import Foundation
import OverlayClient
import Testing

/// `Overlay.at(_:)` and the animation descriptor, with time passed in.
@Suite("Interpolation")
struct InterpolationTests {
    static let slideIn = Animation(property: .contentOffset, from: -20, to: 0, start: 1, duration: 0.25)

    /// A slide-in moves contentOffset, the label and the bar, linearly; alpha stays 1.
    @Test(arguments: [
        (1.0, -20.0), (1.0625, -15.0), (1.125, -10.0), (1.2, -4.0), (1.25, 0.0), (7.0, 0.0), (0.5, -20.0),
    ])
    func slide(time: Double, contentOffset: Double) {
        let overlay = Overlay.sample(animation: Self.slideIn, contentOffset: -20).at(time)
        #expect(abs(overlay.contentOffset - contentOffset) < 1e-12)
        #expect(overlay.alpha == 1)
        #expect(overlay.label?.frame.y == overlay.contentOffset)
        #expect(overlay.progressBar?.frame.y == overlay.contentOffset + 18)
        #expect(overlay.now == time)
        // What does not move stays.
        #expect(overlay.version == 4)
        #expect(overlay.phase == .showing)
        #expect(overlay.label?.frame.width == 708)
        #expect(overlay.progressBar?.frame.width == 384)
    }

    /// The bar follows contentOffset wherever it sits.
    @Test(arguments: [(Overlay.ProgressBar.Position.top, 0.0), (.center, 9.0), (.bottom, 18.0)])
    func progressBarPositions(position: Overlay.ProgressBar.Position, below: Double) {
        let overlay = Overlay.sample(animation: Self.slideIn, contentOffset: -20, position: position).at(1.125)
        #expect(overlay.progressBar?.frame.y == -10 + below)
    }

    /// A fade moves alpha; contentOffset is 0.
    @Test func fade() {
        let fadeOut = Animation(property: .alpha, from: 0.8, to: 0, start: 2, duration: 0.32)
        let overlay = Overlay.sample(animation: fadeOut, alpha: 0.8)
        #expect(abs(overlay.at(2.08).alpha - 0.6) < 1e-12)
        #expect(overlay.at(2.08).contentOffset == 0)
        #expect(overlay.at(2.08).label?.frame.y == 0)
        #expect(overlay.at(2.32).alpha == 0)
        #expect(overlay.at(2).alpha == 0.8)
    }

    /// Without an animation only `now` moves.
    @Test func still() {
        let overlay = Overlay.sample(animation: nil)
        var expected = overlay
        expected.now = 12.5
        #expect(overlay.at(12.5) == expected)
        #expect(!overlay.isAnimating(at: 0))
    }

    /// Times are whole nanoseconds, as on the server: a time rounds to its nanosecond first.
    @Test func nanoseconds() {
        let overlay = Overlay.sample(animation: Self.slideIn, contentOffset: -20)
        #expect(overlay.at(1.1250000004).contentOffset == overlay.at(1.125).contentOffset)
        #expect(overlay.at(1.1250000004).now == 1.125)
        #expect(Self.slideIn.isRunning(at: 1.249_999_999))
        #expect(!Self.slideIn.isRunning(at: 1.25))
        #expect(Self.slideIn.end == 1.25)
    }

    /// Core Animation's ease-in-ease-out: slow at both ends, symmetric, halfway at half time,
    /// and the Bézier's y at x found independently by Newton's method.
    @Test func easeInOut() {
        let curve = Animation.Curve.easeInOut
        #expect(curve.value(at: 0) == 0)
        #expect(curve.value(at: 1) == 1)
        #expect(abs(curve.value(at: 0.5) - 0.5) < 1e-12)
        for step in 1..<20 {
            let x = Double(step) / 20
            #expect(abs(curve.value(at: x) + curve.value(at: 1 - x) - 1) < 1e-12)
            #expect(abs(curve.value(at: x) - Self.newtonBezier(x)) < 1e-12)
        }
        #expect(curve.value(at: 0.1) < 0.1)
        #expect(curve.value(at: 0.9) > 0.9)
        let eased = Animation(property: .alpha, from: 0, to: 1, start: 0, duration: 1, curve: .easeInOut)
        #expect(abs(eased.value(at: 0.25) - Self.newtonBezier(0.25)) < 1e-12)
    }

    /// y of the Bézier (0.42, 0) (0.58, 1) at x, solving x(t) = x by Newton steps.
    static func newtonBezier(_ x: Double) -> Double {
        var t = x
        for _ in 0..<50 {
            let u = 1 - t
            let xt = 3 * u * u * t * 0.42 + 3 * u * t * t * 0.58 + t * t * t
            let dx = 3 * u * u * 0.42 + 6 * u * t * (0.58 - 0.42) + 3 * t * t * (1 - 0.58)
            t -= (xt - x) / dx
        }
        let u = 1 - t
        return 3 * u * t * t + t * t * t
    }

    /// The status bar's fade moves its alpha, its slide its offset.
    @Test func statusBar() {
        let frame = Rect(x: 0, y: 0, width: 768, height: 20)
        let fade = StatusBar(
            style: .lightContent, hidden: true, alpha: 1, offset: 0, frame: frame,
            animation: Animation(property: .alpha, from: 1, to: 0, start: 3, duration: 0.25))
        #expect(fade.at(3.125).alpha == 0.5)
        #expect(fade.at(3.125).offset == 0)
        let slide = StatusBar(
            style: .lightContent, hidden: false, alpha: 1, offset: -20, frame: frame,
            animation: Animation(property: .offset, from: -20, to: 0, start: 3, duration: 0.25))
        #expect(slide.at(3.0625).offset == -15)
        #expect(slide.at(3.0625).alpha == 1)
        let slideOut = StatusBar(
            style: .darkContent, hidden: true, alpha: 1, offset: 0, frame: frame,
            animation: Animation(property: .offset, from: 0, to: -20, start: 3, duration: 0.25))
        #expect(slideOut.at(3.125).offset == -10)
        #expect(slideOut.at(3.125).alpha == 1)
        #expect(slideOut.at(3.25).offset == -20)
        #expect(slideOut.at(3.25).alpha == 0)
        var overlay = Overlay.sample(animation: nil)
        overlay.statusBar = slide
        #expect(overlay.at(3.0625).statusBar?.offset == -15)
        #expect(overlay.isAnimating(at: 3.1))
        #expect(!overlay.isAnimating(at: 3.25))
    }

    /// A descriptor of no length is at its end at once; an unknown property moves nothing.
    @Test func degenerate() {
        #expect(Animation(property: .alpha, from: 0, to: 1, start: 5, duration: 0).value(at: 4) == 1)
        let unknown = Animation(property: "scale", from: 0, to: 1, start: 0, duration: 1)
        let overlay = Overlay.sample(animation: unknown, contentOffset: -3, alpha: 0.7).at(0.5)
        #expect(overlay.contentOffset == -3)
        #expect(overlay.alpha == 0.7)
        let huge = Animation(property: .alpha, from: 0, to: 1, start: 0, duration: 1e300)
        #expect(huge.value(at: -1e300) == 0)
        #expect(huge.isRunning(at: 1e9))
    }
}
