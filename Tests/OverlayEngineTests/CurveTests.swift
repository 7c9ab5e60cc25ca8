import Testing

@testable import OverlayEngine

/// Animation curves (MODEL §4: linear by default, `easeInOut` on request) and the running
/// animation's descriptor (MODEL §5's `animation`).
@Suite("Curves and the animation descriptor (MODEL §4)")
struct CurveTests {
    /// Linear is the default and is the identity, clamped to 0...1.
    @Test func linear() {
        #expect(EngineConfiguration().curve == .linear)
        #expect(Curve.linear.value(at: 0) == 0)
        #expect(Curve.linear.value(at: 0.3) == 0.3)
        #expect(Curve.linear.value(at: 1) == 1)
        #expect(Curve.linear.value(at: -1) == 0)
        #expect(Curve.linear.value(at: 2) == 1)
    }

    /// easeInOut starts at 0, ends at 1, passes 0.5 at the midpoint and is symmetric about it.
    @Test func easeInOutShape() {
        #expect(Curve.easeInOut.value(at: 0) == 0)
        #expect(Curve.easeInOut.value(at: 1) == 1)
        #expect(isClose(Curve.easeInOut.value(at: 0.5), 0.5))
        #expect(isClose(Curve.easeInOut.value(at: 0.25) + Curve.easeInOut.value(at: 0.75), 1))
        #expect(Curve.easeInOut.value(at: -0.5) == 0)
        #expect(Curve.easeInOut.value(at: 1.5) == 1)
    }

    /// easeInOut matches the Bézier at sample points: slow at the ends, fast in the middle.
    @Test(arguments: [0.05, 0.1, 0.25, 0.4, 0.6, 0.75, 0.9, 0.95])
    func easeInOutValues(x: Double) {
        #expect(isClose(Curve.easeInOut.value(at: x), bezierEaseInOut(x)))
    }

    /// easeInOut at a quarter of the time has covered about 12.9 % of the way (the Bézier's value).
    @Test func easeInOutQuarter() {
        #expect(abs(Curve.easeInOut.value(at: 0.25) - 0.129_161_931) < 1e-6)
        #expect(Curve.easeInOut.value(at: 0.25) < 0.25)
        #expect(Curve.easeInOut.value(at: 0.75) > 0.75)
    }

    /// easeInOut never goes back.
    @Test func easeInOutMonotonic() {
        let values = (0...1000).map { Curve.easeInOut.value(at: Double($0) / 1000) }
        #expect(zip(values, values.dropFirst()).allSatisfy { $0 <= $1 })
    }

    /// With `curve: easeInOut` the show's contentOffset follows the curve; the descriptor is unchanged
    /// and the snapshot says which curve it runs on.
    @Test func easeInOutShow() throws {
        var engine = makeEngine { $0.curve = .easeInOut }
        try engine.posted(.message("a"), at: .seconds(0))
        let quarter = engine.overlay(at: .seconds(0.0625))
        #expect(isClose(quarter.contentOffset, -20 + 20 * bezierEaseInOut(0.25)))
        #expect(isClose(engine.overlay(at: .seconds(0.125)).contentOffset, -10))
        #expect(engine.overlay(at: .seconds(0.25)).contentOffset == 0)
        #expect(quarter.curve == .easeInOut)
        #expect(quarter.animation == .contentOffset(from: -20, to: 0, start: 0, duration: 0.25))
    }

    /// With `curve: easeInOut` a rotation's fade follows the curve too.
    @Test func easeInOutRotation() throws {
        var engine = makeEngine { $0.curve = .easeInOut }
        try engine.posted(.message("a"), at: .seconds(0))
        engine.changeOrientation(to: .landscapeLeft, at: .seconds(1))
        #expect(isClose(engine.overlay(at: .seconds(1.1)).alpha, 1 - bezierEaseInOut(0.25)))
        #expect(isClose(engine.overlay(at: .seconds(1.5)).alpha, bezierEaseInOut(0.25)))
    }

    /// The descriptor is the running phase's animation: property, from, to, start and duration;
    /// none while hidden or visible.
    @Test func descriptorPerPhase() throws {
        var engine = makeEngine()
        #expect(engine.overlay(at: .seconds(0)).animation == nil)
        try engine.posted(.message("a"), at: .seconds(0))
        #expect(
            engine.overlay(at: .seconds(0.1)).animation == .contentOffset(from: -20, to: 0, start: 0, duration: 0.25))
        #expect(engine.overlay(at: .seconds(1)).animation == nil)
        engine.changeOrientation(to: .landscapeLeft, at: .seconds(1))
        #expect(engine.overlay(at: .seconds(1.1)).animation == .alpha(from: 1, to: 0, start: 1, duration: 0.4))
        #expect(engine.overlay(at: .seconds(1.5)).animation == .alpha(from: 0, to: 1, start: 1.4, duration: 0.4))
        #expect(engine.overlay(at: .seconds(2)).animation == nil)
        #expect(
            engine.overlay(at: .seconds(2.8)).animation == .contentOffset(from: 0, to: -20, start: 2.75, duration: 0.25)
        )
        #expect(engine.overlay(at: .seconds(3)).animation == nil)
    }

    /// With fade, the show and hide animate alpha.
    @Test func fadeDescriptor() throws {
        var engine = makeEngine { $0.showStyle = .fade }
        try engine.posted(.message("a"), at: .seconds(0))
        #expect(engine.overlay(at: .seconds(0)).animation == .alpha(from: 0, to: 1, start: 0, duration: 0.25))
        #expect(engine.overlay(at: .seconds(2.75)).animation == .alpha(from: 1, to: 0, start: 2.75, duration: 0.25))
    }

    /// A transition reports its end and clamps its value to its ends.
    @Test func transitionValues() {
        let slide = Transition.contentOffset(from: -20, to: 0, start: 1, duration: 0.25)
        #expect(slide.end == .seconds(1.25))
        #expect(slide.value(at: .seconds(1), curve: .linear) == -20)
        #expect(slide.value(at: .seconds(1.125), curve: .linear) == -10)
        #expect(slide.value(at: .seconds(1.25), curve: .linear) == 0)
        #expect(slide.value(at: .seconds(5), curve: .linear) == 0)
        #expect(slide.value(at: .seconds(0), curve: .linear) == -20)
    }
}
