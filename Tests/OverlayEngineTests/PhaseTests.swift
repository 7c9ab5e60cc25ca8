import Testing

@testable import OverlayEngine

/// Show and hide in each show style (MODEL §4), on the default ipad (h = 20) with an `info`
/// message (2.5 s) posted at 0: shown 0 → 0.25, displayed 0.25 → 2.75, hidden 2.75 → 3.0.
@Suite("Phases and show styles (MODEL §4)")
struct PhaseTests {
    /// The phase names are MODEL §4's.
    @Test func phaseNames() {
        #expect(
            Phase.allCases.map(\.rawValue) == ["hidden", "showing", "visible", "hiding", "rotatingOut", "rotatingIn"])
        #expect(EngineConfiguration().showStyle == .slide)
        #expect(ShowStyle.allCases.map(\.rawValue) == ["slide", "fade", "none", "bounce"])
    }

    /// Slide: contentOffset −h → 0 in 0.25 s, with alpha 1 throughout.
    @Test func slideShows() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))

        let start = engine.overlay(at: .seconds(0))
        #expect(start.phase == .showing)
        #expect(start.contentOffset == -20)
        #expect(start.alpha == 1)

        let middle = engine.overlay(at: .seconds(0.125))
        #expect(middle.phase == .showing)
        #expect(middle.contentOffset == -10)
        #expect(middle.alpha == 1)

        let end = engine.overlay(at: .seconds(0.25))
        #expect(end.phase == .visible)
        #expect(end.contentOffset == 0)
        #expect(end.alpha == 1)
    }

    /// Slide: contentOffset 0 → −h in 0.25 s when the message's time ends; hidden, alpha is 0.
    @Test func slideHides() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))

        let start = engine.overlay(at: .seconds(2.75))
        #expect(start.phase == .hiding)
        #expect(start.contentOffset == 0)
        #expect(start.alpha == 1)

        let middle = engine.overlay(at: .seconds(2.875))
        #expect(middle.phase == .hiding)
        #expect(middle.contentOffset == -10)
        #expect(middle.alpha == 1)

        let end = engine.overlay(at: .seconds(3.0))
        #expect(end.phase == .hidden)
        #expect(end.contentOffset == -20)
        #expect(end.alpha == 0)
    }

    /// Fade: contentOffset stays 0 while alpha goes 0 → 1 over the show's 0.25 s.
    @Test func fadeShows() throws {
        var engine = makeEngine { $0.showStyle = .fade }
        try engine.posted(.message("a"), at: .seconds(0))

        let start = engine.overlay(at: .seconds(0))
        #expect(start.phase == .showing)
        #expect(start.contentOffset == 0)
        #expect(start.alpha == 0)

        let middle = engine.overlay(at: .seconds(0.125))
        #expect(middle.contentOffset == 0)
        #expect(middle.alpha == 0.5)

        let end = engine.overlay(at: .seconds(0.25))
        #expect(end.phase == .visible)
        #expect(end.contentOffset == 0)
        #expect(end.alpha == 1)
    }

    /// Fade: alpha goes 1 → 0 over the hide's 0.25 s; hidden, contentOffset is 0 and alpha 0.
    @Test func fadeHides() throws {
        var engine = makeEngine { $0.showStyle = .fade }
        try engine.posted(.message("a"), at: .seconds(0))

        let start = engine.overlay(at: .seconds(2.75))
        #expect(start.phase == .hiding)
        #expect(start.alpha == 1)

        let middle = engine.overlay(at: .seconds(2.875))
        #expect(middle.contentOffset == 0)
        #expect(middle.alpha == 0.5)

        let end = engine.overlay(at: .seconds(3.0))
        #expect(end.phase == .hidden)
        #expect(end.contentOffset == 0)
        #expect(end.alpha == 0)
    }

    /// None: the overlay is visible at the post, its time starts then, and it hides at the instant it ends.
    @Test func noneIsInstant() throws {
        var engine = makeEngine { $0.showStyle = .none }
        let hidden = engine.overlay(at: .seconds(0))
        #expect(hidden.contentOffset == 0)
        #expect(hidden.alpha == 0)

        try engine.posted(.message("a"), at: .seconds(1))
        let shown = engine.overlay(at: .seconds(1))
        #expect(shown.phase == .visible)
        #expect(shown.contentOffset == 0)
        #expect(shown.alpha == 1)
        #expect(shown.animation == nil)
        #expect(engine.message(id: 1)?.displayStartedAt == .seconds(1))

        #expect(engine.overlay(at: .seconds(3.499_999_999)).phase == .visible)
        let gone = engine.overlay(at: .seconds(3.5))
        #expect(gone.phase == .hidden)
        #expect(gone.contentOffset == 0)
        #expect(gone.alpha == 0)
        #expect(gone.message == nil)
    }

    /// The show and hide durations are configurable, each on its own.
    @Test func configuredDurations() throws {
        var engine = makeEngine {
            $0.showDuration = .seconds(1)
            $0.hideDuration = .seconds(0.5)
        }
        try engine.posted(.message("a", duration: 2), at: .seconds(0))
        #expect(engine.overlay(at: .seconds(0.5)).contentOffset == -10)
        #expect(engine.overlay(at: .seconds(1)).phase == .visible)
        #expect(engine.overlay(at: .seconds(3)).phase == .hiding)
        #expect(engine.overlay(at: .seconds(3.25)).contentOffset == -10)
        #expect(engine.overlay(at: .seconds(3.5)).phase == .hidden)
    }

    /// While the overlay hides, the departing message is still drawn, ended; once hidden there is none.
    @Test func departingMessageDuringHide() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        let hiding = engine.overlay(at: .seconds(2.875))
        #expect(hiding.message?.id == 1)
        #expect(hiding.message?.state == .done)
        #expect(hiding.label?.text == "a")
        #expect(hiding.label?.frame.y == -10)
        #expect(hiding.queued == 0)

        let hidden = engine.overlay(at: .seconds(3))
        #expect(hidden.message == nil)
        #expect(hidden.label == nil)
        #expect(hidden.style == nil)
        #expect(hidden.activity == false)
        #expect(hidden.progressBar == nil)
        #expect(hidden.animation == nil)
    }

    /// A hide that interrupts a slide-in starts from the current contentOffset and moves at the hide's
    /// speed: from −10 it takes half of 0.25 s.
    @Test func hideInterruptingSlide() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.deleted(1, at: .seconds(0.125))

        let start = engine.overlay(at: .seconds(0.125))
        #expect(start.phase == .hiding)
        #expect(start.contentOffset == -10)
        #expect(start.animation == .contentOffset(from: -10, to: -20, start: 0.125, duration: 0.125))
        #expect(engine.overlay(at: .seconds(0.1875)).contentOffset == -15)
        #expect(engine.overlay(at: .seconds(0.25)).phase == .hidden)
    }

    /// A hide that interrupts a fade-in starts from the current alpha: from 0.5 it takes half of 0.25 s.
    @Test func hideInterruptingFade() throws {
        var engine = makeEngine { $0.showStyle = .fade }
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.deleted(1, at: .seconds(0.125))

        #expect(engine.overlay(at: .seconds(0.125)).alpha == 0.5)
        #expect(engine.overlay(at: .seconds(0.1875)).alpha == 0.25)
        #expect(engine.overlay(at: .seconds(0.1875)).phase == .hiding)
        #expect(engine.overlay(at: .seconds(0.25)).phase == .hidden)
    }

    /// A hide from the very start of a show takes no time: the overlay is hidden at the DELETE.
    @Test func hideFromStartIsInstant() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.deleted(1, at: .seconds(0))
        let overlay = engine.overlay(at: .seconds(0))
        #expect(overlay.phase == .hidden)
        #expect(overlay.message == nil)
        #expect(engine.nextDeadline == nil)
    }
}
