import OverlayEngine
import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// The `bounce` show style through real HTTP (§10): on the iPhone 15 Pro (auto is the pill,
/// Hw = 109) the content comes from −109 along the ease-out bounce over 0.75 s, and the
/// `animation` descriptor, interpolated as a reader does, gives the numbers `GET /overlay` shows.
@Suite("Show style bounce through the API (§10)")
struct BounceAPITests {
    static func server(_ configure: (inout ServiceConfiguration) -> Void = { _ in }) throws -> LiveServer {
        try LiveServer {
            $0.engine.showStyle = .bounce
            $0.device = "iphone-15-pro"
            configure(&$0)
        }
    }

    /// What a reader computes from an `animation` descriptor at `now`: the fraction in whole
    /// nanoseconds, then to − (to − from)(1 − b(p)) for `easeOutBounce`.
    static func interpolate(_ animation: JSONValue?, at now: Double) -> Double? {
        guard let from = animation?["from"]?.number, let to = animation?["to"]?.number,
            let start = animation?["start"]?.number, let duration = animation?["duration"]?.number,
            animation?["curve"]?.string == "easeOutBounce"
        else { return nil }
        let p = Double(Interval.seconds(now - start).nanoseconds) / Double(Interval.seconds(duration).nanoseconds)
        if p >= 1 { return to }
        return to - (to - from) * (1 - Curve.easeOutBounce(p))
    }

    static func json(_ text: String) throws -> JSONValue { try JSONParser.parse(Array(text.utf8)) }

    /// At p = 0, 0.2, 0.5, 0.8, 0.95 and 1 of the 0.75 s: contentOffset −109 × (1 − b(p)) (about
    /// −109, −76.0275, −25.546875, −6.54, −1.68609375, 0), the pill and the label moving with it.
    @Test func theShow() throws {
        try withLiveServer(started: Self.server()) { live in
            #expect(try live.overlay()["contentOffset"]?.number == -109)
            #expect(try live.request("POST", "/messages", body: "Hello").status == 202)
            let descriptor = try Self.json(
                #"{"property": "contentOffset", "from": -109, "to": 0, "start": 0, "duration": 0.75, "curve": "easeOutBounce"}"#
            )
            let instants: [(advance: Double, p: Double, about: Double)] = [
                (0, 0, -109), (0.15, 0.2, -76.0275), (0.225, 0.5, -25.546_875), (0.225, 0.8, -6.54),
                (0.1125, 0.95, -1.686_093_75),
            ]
            var restingLabelY: Double?
            for (advance, p, about) in instants {
                if advance > 0 { try live.advance(advance) }
                let overlay = try live.overlay()
                let now = try #require(overlay["now"]?.number)
                #expect(abs(now - p * 0.75) < 1e-9)
                #expect(overlay["phase"]?.string == "showing")
                #expect(overlay["animation"] == descriptor)
                let offset = try #require(overlay["contentOffset"]?.number)
                #expect(offset == -109 * (1 - Curve.easeOutBounce(p)), "p = \(p)")
                #expect(offset == Self.interpolate(overlay["animation"], at: now), "p = \(p)")
                #expect(abs(offset - about) < 1e-9, "p = \(p): \(offset)")
                #expect(overlay["pill"]?["frame"]?["y"]?.number == 59 + offset)
                let labelY = try #require(overlay["label"]?["frame"]?["y"]?.number)
                if let restingLabelY { #expect(labelY == restingLabelY + offset) }
                restingLabelY = restingLabelY ?? labelY - offset
            }
            try live.advance(0.0375)
            let shown = try live.overlay()
            #expect(shown["phase"]?.string == "visible")
            #expect(shown["contentOffset"]?.number == 0)
            #expect(shown["animation"]?.isNull == true)
            #expect(shown["label"]?["frame"]?["y"]?.number == restingLabelY)
        }
    }

    /// The message's time starts at the bounce's end; hiding is a linear slide without `curve`.
    @Test func hidingIsASlide() throws {
        try withLiveServer(started: Self.server()) { live in
            #expect(try live.request("POST", "/messages", body: "Hello").status == 202)
            try live.advance(0.75)
            #expect(try live.get("/messages/1").json["displayStartedAt"]?.number == 0.75)
            try live.advance(2.5)
            let hiding = try live.overlay()
            #expect(hiding["phase"]?.string == "hiding")
            #expect(
                hiding["animation"]
                    == (try Self.json(
                        #"{"property": "contentOffset", "from": 0, "to": -109, "start": 3.25, "duration": 0.25}"#)))
            try live.advance(0.125)
            #expect(try live.overlay()["contentOffset"]?.number == -54.5)
        }
    }

    /// A configured curve does not bend the bounce (its descriptor still says `easeOutBounce`);
    /// it shapes the hide, whose descriptor names it. `bounceDuration` sets the show's length.
    @Test func curveAndDuration() throws {
        try withLiveServer(
            started: Self.server {
                $0.engine.curve = .easeInOut
                $0.engine.bounceDuration = .seconds(1.5)
            }
        ) { live in
            #expect(try live.request("POST", "/messages", body: "Hello").status == 202)
            try live.advance(0.75)
            let overlay = try live.overlay()
            #expect(overlay["animation"]?["curve"]?.string == "easeOutBounce")
            #expect(overlay["animation"]?["duration"]?.number == 1.5)
            #expect(overlay["contentOffset"]?.number == -109 * (1 - Curve.easeOutBounce(0.5)))
            try live.advance(0.75 + 2.5)
            let hiding = try live.overlay()
            #expect(hiding["animation"]?["curve"]?.string == "easeInOut")
            #expect(hiding["animation"]?["start"]?.number == 4)
        }
    }
}
