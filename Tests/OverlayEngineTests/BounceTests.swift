import Testing

@testable import OverlayEngine

/// The `bounce` show style (§10): contentOffset from −Hw to 0 over `bounceDuration` (0.75 s)
/// along the ease-out bounce, contentOffset = −Hw × (1 − b(p)); hiding is a slide.
@Suite("Show style bounce (§10)")
struct BounceTests {
    /// b(p) as §10 writes it, piece by piece.
    static func b(_ p: Double) -> Double {
        if p < 1 / 2.75 { return 7.5625 * p * p }
        if p < 2 / 2.75 { return 7.5625 * (p - 1.5 / 2.75) * (p - 1.5 / 2.75) + 0.75 }
        if p < 2.5 / 2.75 { return 7.5625 * (p - 2.25 / 2.75) * (p - 2.25 / 2.75) + 0.9375 }
        return 7.5625 * (p - 2.625 / 2.75) * (p - 2.625 / 2.75) + 0.984375
    }

    /// The instants of the show, with b(p) worked by hand.
    static let instants: [(p: Double, b: Double)] = [
        (0, 0), (0.2, 0.3025), (0.5, 0.765625), (0.8, 0.94), (0.95, 0.984_531_25), (1, 1),
    ]

    /// What a reader computes from the `animation` descriptor alone at `time`: the fraction of
    /// whole nanoseconds, then to − (to − from)(1 − b(p)).
    static func interpolate(_ animation: Transition, at time: Instant) -> Double {
        let p = Double((time - animation.start).nanoseconds) / Double(animation.length.nanoseconds)
        if p >= 1 { return animation.to }
        return animation.to - (animation.to - animation.from) * (1 - b(p))
    }

    static func engine(
        _ device: DeviceProfile = .iphone15Pro, _ configure: (inout EngineConfiguration) -> Void = { _ in }
    ) -> OverlayEngine {
        makeEngine {
            $0.device = device
            $0.showStyle = .bounce
            configure(&$0)
        }
    }

    /// The curve is §10's and passes the hand-worked values; it is continuous where its pieces meet.
    @Test func theCurve() {
        for (p, value) in Self.instants {
            #expect(Curve.easeOutBounce(p) == Self.b(p), "p = \(p)")
            #expect(isClose(Curve.easeOutBounce(p), value), "p = \(p)")
        }
        for edge in [1 / 2.75, 2 / 2.75, 2.5 / 2.75] {
            #expect(isClose(Curve.easeOutBounce(edge), Curve.easeOutBounce(edge.nextDown)))
        }
        #expect(isClose(Curve.easeOutBounce(1 / 2.75), 1))
        #expect(isClose(Curve.easeOutBounce(2 / 2.75), 1))
        #expect(Curve.easeOutBounce(-1) == 0)
        #expect(Curve.easeOutBounce(2) == 1)
    }

    /// On the iPhone 15 Pro (auto is the pill, Hw = 109) and on the iPad (the status bar, Hw = 20)
    /// contentOffset is exactly −Hw × (1 − b(p)) at p = 0, 0.2, 0.5, 0.8, 0.95 and 1 of 0.75 s; the
    /// label moves with it; the descriptor says so, and a reader interpolating it gets the same.
    @Test(arguments: [(DeviceProfile.iphone15Pro, 109.0), (.ipad, 20)])
    func theShow(_ device: DeviceProfile, _ hw: Double) throws {
        var engine = Self.engine(device)
        #expect(engine.at(0).contentOffset == -hw)
        try engine.posted(.message("Hello"), at: .seconds(0))
        let descriptor = Transition(
            property: .contentOffset, from: -hw, to: 0, start: .zero, length: .seconds(0.75), bounces: true)
        let restingY = try #require(engine.at(0.75).label?.frame.y)
        for (p, value) in Self.instants {
            let time = Instant.seconds(p * 0.75)
            let overlay = engine.overlay(at: time)
            #expect(overlay.contentOffset == -hw * (1 - Self.b(p)), "p = \(p)")
            #expect(isClose(overlay.contentOffset, -hw * (1 - value)), "p = \(p)")
            #expect(overlay.label?.frame.y == restingY + overlay.contentOffset, "p = \(p)")
            #expect(overlay.alpha == 1)
            if p < 1 {
                #expect(overlay.phase == .showing)
                #expect(overlay.animation == descriptor)
                #expect(descriptor.value(at: time, curve: .linear) == overlay.contentOffset)
                #expect(Self.interpolate(descriptor, at: time) == overlay.contentOffset)
            } else {
                #expect(overlay.phase == .visible)
                #expect(overlay.animation == nil)
                #expect(overlay.contentOffset == 0)
            }
        }
        // In points on the iPhone: −109, −76.0275, −25.546875, −6.54, −1.68609375, 0.
        if hw == 109 {
            #expect(isClose(engine.at(0.5 * 0.75).contentOffset, -25.546_875))
            #expect(isClose(engine.at(0.8 * 0.75).contentOffset, -6.54))
        }
    }

    /// The message's time starts when the bounce ends (0.75 s); hiding is a linear slide to −Hw
    /// in 0.25 s with no bounce, and the hidden content is at −Hw.
    @Test func hidingIsASlide() throws {
        var engine = Self.engine()
        try engine.posted(.message("Hello"), at: .seconds(0))
        #expect(engine.current?.displayStartedAt == nil)
        #expect(engine.at(0.75).message?.displayStartedAt == .seconds(0.75))
        #expect(engine.at(3.249_999_999).phase == .visible)
        let hiding = engine.at(3.25)
        #expect(hiding.phase == .hiding)
        #expect(hiding.animation == .contentOffset(from: 0, to: -109, start: 3.25, duration: 0.25))
        #expect(hiding.animation?.bounces == false)
        #expect(engine.at(3.375).contentOffset == -54.5)
        #expect(engine.at(3.5).phase == .hidden)
        #expect(engine.at(3.5).contentOffset == -109)
    }

    /// `bounceDuration` sets the show's length, and the configured curve does not bend the bounce;
    /// it still shapes the hide.
    @Test func durationAndCurve() throws {
        var engine = Self.engine(.ipad) {
            $0.bounceDuration = .seconds(1.5)
            $0.curve = .easeInOut
        }
        try engine.posted(.message("Hello"), at: .seconds(0))
        #expect(engine.at(0).animation?.length == .seconds(1.5))
        #expect(engine.at(0.75).contentOffset == -20 * (1 - Self.b(0.5)))
        #expect(engine.at(1.5).phase == .visible)
        // Shown until 1.5 + 2.5; the hide's middle is the ease-in-ease-out's.
        #expect(engine.at(4.125).contentOffset == 0 + (-20 - 0) * Curve.easeInOut.value(at: 0.5))
    }

    /// A DELETE during the bounce hides from where the content is, at the hide's speed over the
    /// distance left: at p = 0.4 (b = 0.91) the content is at −9.81, 0.09 of the way.
    @Test func aHideDuringTheBounce() throws {
        var engine = Self.engine()
        try engine.posted(.message("Hello", kind: .sending), at: .seconds(0))
        try engine.deleted(1, at: .seconds(0.3))
        let hiding = engine.at(0.3)
        let from = -109 * (1 - Self.b(0.4))
        #expect(isClose(from, -9.81))
        #expect(hiding.phase == .hiding)
        #expect(hiding.animation?.from == from)
        #expect(hiding.animation?.to == -109)
        #expect(hiding.animation?.bounces == false)
        #expect(hiding.animation?.length == Interval.seconds(0.25).scaled(by: (from + 109) / 109))
    }

    /// A presentation change during the bounce keeps its fraction: the descriptor's ends are
    /// rescaled by the new Hw (pill 109 → fullWidth 59 + 38.66) and it still bounces.
    @Test func aPresentationChangeDuringTheBounce() throws {
        var engine = Self.engine { $0.presentation = .pill }
        try engine.posted(.message("Hello"), at: .seconds(0))
        engine.changePresentation(to: .fullWidth, at: .seconds(0.15))
        let hw = 59 + 38.66
        let changed = engine.at(0.15)
        #expect(changed.animation?.from == -hw)
        #expect(changed.animation?.bounces == true)
        #expect(changed.contentOffset == -hw * (1 - Self.b(0.2)))
        #expect(engine.at(0.6).contentOffset == -hw * (1 - Self.b(0.8)))
    }
}
