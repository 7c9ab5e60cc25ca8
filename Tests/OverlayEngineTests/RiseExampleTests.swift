import Testing

@testable import OverlayEngine

/// docs/MODEL.md §14's worked example: on the iphone-15-pro in portrait "a" is shown and "b" rises
/// in at t = 0 of the rise ("a" posted at 0 with 1 s, shown by its slide, its time ending at 1.25,
/// where the rise starts). The labels' y at 0, 0.15, 0.3 and 0.6 s of the rise in each presentation.
@Suite("The rise, worked example (MODEL §14)")
struct RiseExampleTests {
    struct Row {
        var time: Double
        var incoming: Double
        /// Nil once the rise has ended.
        var outgoing: Double?
    }

    static func rising(_ presentation: Presentation) throws -> OverlayEngine {
        var engine = makeEngine {
            $0.device = .iphone15Pro
            $0.presentation = presentation
            $0.messageChange = .rise
            $0.text = .bySevenAndSix
        }
        try engine.posted(.message("a", duration: 1), at: .seconds(0))
        try engine.posted(.message("b"), at: .seconds(0.1))
        return engine
    }

    static let e = Curve.easeInOut.value(at: 0.25)

    @Test(arguments: [
        (Presentation.statusBar, 54.0, 0.0, 54.0),
        (Presentation.fullWidth, 38.66, 59.0, 38.66),
        (Presentation.pill, 50.0, 59.0, 50.0),
    ])
    func frames(presentation: Presentation, distance: Double, restingY: Double, height: Double) throws {
        let engine = try Self.rising(presentation)
        #expect(isClose(Self.e, 0.129_161_931_047_319_8))
        let rows = [
            Row(time: 0, incoming: restingY + distance, outgoing: restingY),
            Row(time: 0.15, incoming: restingY + distance * (1 - Self.e), outgoing: restingY - distance * Self.e),
            Row(time: 0.3, incoming: restingY + distance / 2, outgoing: restingY - distance / 2),
            Row(time: 0.6, incoming: restingY, outgoing: nil),
        ]
        for row in rows {
            let overlay = engine.at(1.25 + row.time)
            let label = try #require(overlay.label)
            #expect(label.text == "b")
            #expect(isClose(label.frame.y, row.incoming), "\(presentation) at \(row.time)")
            #expect(label.frame.height == height)
            if let y = row.outgoing {
                let outgoing = try #require(overlay.outgoing)
                #expect(outgoing.text == "a")
                #expect(isClose(outgoing.frame.y, y), "\(presentation) at \(row.time)")
                #expect(outgoing.frame.height == height)
                #expect(outgoing.frame.x == label.frame.x)
                #expect(outgoing.frame.width == label.frame.width)
                #expect(
                    overlay.animation
                        == Transition(
                            property: .labelOffset, from: distance, to: 0, start: .seconds(1.25), length: .seconds(0.6))
                )
            } else {
                #expect(overlay.outgoing == nil)
                #expect(overlay.animation == nil)
                #expect(overlay.message?.displayStartedAt == .seconds(1.85))
            }
        }
    }

    /// The documented roundings: 47.03 / −6.97 in `statusBar`, 92.67 / 54.01 in `fullWidth`,
    /// 102.54 / 52.54 in `pill` at 0.15 s.
    @Test func documentedNumbers() throws {
        func rounded(_ value: Double?) -> Double? { value.map { ($0 * 100).rounded() / 100 } }
        let expected: [(Presentation, Double, Double)] = [
            (.statusBar, 47.03, -6.97), (.fullWidth, 92.67, 54.01), (.pill, 102.54, 52.54),
        ]
        for (presentation, incoming, outgoing) in expected {
            let overlay = try Self.rising(presentation).at(1.4)
            #expect(rounded(overlay.label?.frame.y) == incoming)
            #expect(rounded(overlay.outgoing?.frame.y) == outgoing)
        }
    }

    /// With a subtitle under the outgoing label (`fullWidth`), the outgoing label keeps its own
    /// resting y and height (59 + (38.66 − 31)/2 and 16) while taking the incoming one's x and width.
    @Test func theOutgoingLabelKeepsItsHeight() throws {
        var engine = makeEngine {
            $0.device = .iphone15Pro
            $0.presentation = .fullWidth
            $0.messageChange = .rise
        }
        try engine.posted(.message("a", subtitle: "under", duration: 1), at: .seconds(0))
        try engine.posted(.message("b"), at: .seconds(0.1))
        let overlay = engine.at(1.25)
        #expect(isClose(overlay.outgoing?.frame.y ?? 0, 62.83))
        #expect(overlay.outgoing?.frame.height == 16)
        #expect(overlay.label?.frame.height == 38.66)
        #expect(overlay.subtitle == nil)
    }

    /// In `pill` the capsule takes the incoming text's width at the rise's start.
    @Test func thePillTakesItsNewWidthAtOnce() throws {
        var engine = makeEngine {
            $0.device = .iphone15Pro
            $0.presentation = .pill
            $0.messageChange = .rise
            $0.text = .bySevenAndSix
        }
        try engine.posted(.message("a", duration: 1), at: .seconds(0))
        try engine.posted(.message(String(repeating: "b", count: 40)), at: .seconds(0.1))
        let before = try #require(engine.at(1.2).pill)
        let start = try #require(engine.at(1.25).pill)
        #expect(before.frame.width == 200)
        #expect(start.frame.width == 320)
        #expect(engine.at(1.25).outgoing?.frame.width == engine.at(1.25).label?.frame.width)
    }
}
