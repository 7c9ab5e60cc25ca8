import Testing

@testable import OverlayEngine

/// Orientation changes in every phase (MODEL §4), on the default ipad in portrait with an
/// `info` message (2.5 s) posted at 0: shown 0 → 0.25, displayed 0.25 → 2.75, hidden 2.75 → 3.0.
/// A rotation fades alpha a → 0 in a × 0.4 s, applies the new orientation, then fades 0 → 1 in 0.4 s.
@Suite("Rotation (MODEL §4)")
struct RotationTests {
    /// Hidden: the frame simply changes, with no animation.
    @Test func whileHidden() throws {
        var engine = makeEngine()
        let changed = engine.changeOrientation(to: .landscapeRight, at: .seconds(1)).value
        #expect(changed)
        let overlay = engine.overlay(at: .seconds(1))
        #expect(overlay.phase == .hidden)
        #expect(overlay.orientation == .landscapeRight)
        #expect(overlay.rotation == 90)
        #expect(overlay.frame == Rect(x: 748, y: 0, width: 20, height: 1024))
        #expect(overlay.animation == nil)
        #expect(overlay.version == 1)
        #expect(engine.nextDeadline == nil)

        try engine.posted(.message("a"), at: .seconds(2))
        #expect(engine.overlay(at: .seconds(2.25)).label?.frame == Rect(x: 30, y: 0, width: 964, height: 20))
    }

    /// Visible: rotatingOut fades 1 → 0 in 0.4 s in the old frame; then the new orientation, rotation
    /// and frame apply at once and rotatingIn fades 0 → 1 in 0.4 s; then visible. The message's time runs on.
    @Test func whileVisible() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        engine.changeOrientation(to: .landscapeRight, at: .seconds(1))

        let out = engine.overlay(at: .seconds(1))
        #expect(out.phase == .rotatingOut)
        #expect(out.alpha == 1)
        #expect(out.contentOffset == 0)
        #expect(out.animation == .alpha(from: 1, to: 0, start: 1, duration: 0.4))
        #expect(engine.rotationTarget == .landscapeRight)

        let halfOut = engine.overlay(at: .seconds(1.2))
        #expect(halfOut.alpha == 0.5)
        #expect(halfOut.orientation == .portrait)
        #expect(halfOut.rotation == 0)
        #expect(halfOut.frame == Rect(x: 0, y: 0, width: 768, height: 20))

        let into = engine.overlay(at: .seconds(1.4))
        #expect(into.phase == .rotatingIn)
        #expect(into.alpha == 0)
        #expect(into.orientation == .landscapeRight)
        #expect(into.rotation == 90)
        #expect(into.frame == Rect(x: 748, y: 0, width: 20, height: 1024))
        #expect(into.label?.frame == Rect(x: 30, y: 0, width: 964, height: 20))
        #expect(into.animation == .alpha(from: 0, to: 1, start: 1.4, duration: 0.4))

        #expect(engine.overlay(at: .seconds(1.6)).alpha == 0.5)

        let done = engine.overlay(at: .seconds(1.8))
        #expect(done.phase == .visible)
        #expect(done.alpha == 1)
        #expect(done.animation == nil)
        #expect(done.message?.id == 1)

        #expect(engine.overlay(at: .seconds(2.749_999_999)).phase == .visible)
        #expect(engine.overlay(at: .seconds(2.75)).phase == .hiding)
    }

    /// Showing: the show completes at once (its display time starts then), then rotatingOut fades from 1.
    @Test func whileShowing() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        engine.changeOrientation(to: .landscapeLeft, at: .seconds(0.1))

        let overlay = engine.overlay(at: .seconds(0.1))
        #expect(overlay.phase == .rotatingOut)
        #expect(overlay.contentOffset == 0)
        #expect(overlay.alpha == 1)
        #expect(overlay.animation?.length == .seconds(0.4))
        #expect(overlay.message?.displayStartedAt == .seconds(0.1))
        #expect(engine.overlay(at: .seconds(0.5)).phase == .rotatingIn)
        #expect(engine.overlay(at: .seconds(0.9)).phase == .visible)
        #expect(engine.overlay(at: .seconds(2.599_999_999)).phase == .visible)
        #expect(engine.overlay(at: .seconds(2.6)).phase == .hiding)
    }

    /// Showing with fade: the show completes at once, so the fade-out starts from alpha 1, not the
    /// show's 0.5, and takes the full 0.4 s.
    @Test func whileFadingIn() throws {
        var engine = makeEngine { $0.showStyle = .fade }
        try engine.posted(.message("a"), at: .seconds(0))
        engine.changeOrientation(to: .landscapeLeft, at: .seconds(0.125))
        let overlay = engine.overlay(at: .seconds(0.125))
        #expect(overlay.alpha == 1)
        #expect(overlay.animation == .alpha(from: 1, to: 0, start: 0.125, duration: 0.4))
    }

    /// Hiding: the hide completes at once, with no fade, and the hidden overlay takes the new frame.
    @Test func whileHiding() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        engine.changeOrientation(to: .portraitUpsideDown, at: .seconds(2.85))

        let overlay = engine.overlay(at: .seconds(2.85))
        #expect(overlay.phase == .hidden)
        #expect(overlay.message == nil)
        #expect(overlay.contentOffset == -20)
        #expect(overlay.alpha == 0)
        #expect(overlay.frame == Rect(x: 0, y: 1004, width: 768, height: 20))
        #expect(overlay.rotation == 180)
        #expect(engine.nextDeadline == nil)
    }

    /// Hiding with a message waiting for the hide: it starts showing at once, in the new orientation.
    @Test func whileHidingWithWaitingMessage() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.posted(.message("b"), at: .seconds(2.8))
        engine.changeOrientation(to: .landscapeLeft, at: .seconds(2.85))

        let overlay = engine.overlay(at: .seconds(2.85))
        #expect(overlay.phase == .showing)
        #expect(overlay.message?.id == 2)
        #expect(overlay.orientation == .landscapeLeft)
        #expect(overlay.contentOffset == -20)
        #expect(overlay.animation?.start == .seconds(2.85))
    }

    /// rotatingOut: a different orientation only changes the target; the fade keeps its time.
    @Test func targetChangeWhileRotatingOut() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        engine.changeOrientation(to: .landscapeLeft, at: .seconds(1))
        let changed = engine.changeOrientation(to: .landscapeRight, at: .seconds(1.2)).value
        #expect(changed)
        #expect(engine.version == 4)
        #expect(engine.rotationTarget == .landscapeRight)

        let overlay = engine.overlay(at: .seconds(1.2))
        #expect(overlay.alpha == 0.5)
        #expect(overlay.animation == .alpha(from: 1, to: 0, start: 1, duration: 0.4))
        #expect(engine.overlay(at: .seconds(1.4)).orientation == .landscapeRight)
        #expect(engine.overlay(at: .seconds(1.4)).phase == .rotatingIn)
    }

    /// rotatingOut: the orientation it already heads for changes nothing, not even the version.
    @Test func sameTargetWhileRotatingOut() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        engine.changeOrientation(to: .landscapeLeft, at: .seconds(1))
        let version = engine.version
        let changed = engine.changeOrientation(to: .landscapeLeft, at: .seconds(1.1)).value
        #expect(!changed)
        #expect(engine.version == version)
        #expect(engine.overlay(at: .seconds(1.4)).orientation == .landscapeLeft)
    }

    /// rotatingOut: heading back to the orientation it started from is a target change too; the
    /// rotation still fades out and in.
    @Test func backToStartWhileRotatingOut() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        engine.changeOrientation(to: .landscapeLeft, at: .seconds(1))
        let version = engine.version
        let changed = engine.changeOrientation(to: .portrait, at: .seconds(1.1)).value
        #expect(changed)
        #expect(engine.version == version + 1)
        let into = engine.overlay(at: .seconds(1.4))
        #expect(into.phase == .rotatingIn)
        #expect(into.orientation == .portrait)
        #expect(engine.overlay(at: .seconds(1.8)).phase == .visible)
    }

    /// rotatingIn: a new orientation starts a new rotatingOut from the current alpha a, taking
    /// a × 0.4 s; rotatingIn then takes the full 0.4 s.
    @Test func newOrientationWhileRotatingIn() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        engine.changeOrientation(to: .landscapeLeft, at: .seconds(1))
        engine.changeOrientation(to: .landscapeRight, at: .seconds(1.5))

        let out = engine.overlay(at: .seconds(1.5))
        #expect(out.phase == .rotatingOut)
        #expect(out.alpha == 0.25)
        #expect(out.orientation == .landscapeLeft)
        #expect(out.animation == .alpha(from: 0.25, to: 0, start: 1.5, duration: 0.1))
        #expect(engine.overlay(at: .seconds(1.55)).alpha == 0.125)

        let into = engine.overlay(at: .seconds(1.6))
        #expect(into.phase == .rotatingIn)
        #expect(into.orientation == .landscapeRight)
        #expect(into.frame == Rect(x: 748, y: 0, width: 20, height: 1024))
        #expect(into.animation == .alpha(from: 0, to: 1, start: 1.6, duration: 0.4))
        #expect(engine.overlay(at: .seconds(1.999_999_999)).phase == .rotatingIn)
        #expect(engine.overlay(at: .seconds(2)).phase == .visible)
    }

    /// rotatingIn: the orientation it is fading in to changes nothing.
    @Test func sameOrientationWhileRotatingIn() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        engine.changeOrientation(to: .landscapeLeft, at: .seconds(1))
        engine.advance(to: .seconds(1.5))
        let version = engine.version
        let changed = engine.changeOrientation(to: .landscapeLeft, at: .seconds(1.5)).value
        #expect(!changed)
        #expect(engine.version == version)
        #expect(engine.phase == .rotatingIn)
    }

    /// The current orientation changes nothing in any phase outside a rotation.
    @Test func sameOrientationOutsideRotation() throws {
        var engine = makeEngine()
        let hidden = engine.changeOrientation(to: .portrait, at: .seconds(0)).value
        try engine.posted(.message("a"), at: .seconds(0))
        let showing = engine.changeOrientation(to: .portrait, at: .seconds(0.1)).value
        let visible = engine.changeOrientation(to: .portrait, at: .seconds(1)).value
        let hiding = engine.changeOrientation(to: .portrait, at: .seconds(2.8)).value
        #expect([hidden, showing, visible, hiding] == [false, false, false, false])
        // One for the post and one for each deadline (show end, message end); none for the orientations.
        #expect(engine.version == 3)
        #expect(engine.phase == .hiding)
    }

    /// A message whose time ends during a rotation ends then, stays drawn, and the overlay hides
    /// when rotatingIn ends.
    @Test func messageEndsDuringRotationThenHides() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        engine.changeOrientation(to: .landscapeLeft, at: .seconds(2.5))

        let ended = engine.overlay(at: .seconds(2.75))
        #expect(ended.phase == .rotatingOut)
        #expect(ended.message?.id == 1)
        #expect(ended.message?.state == .done)
        #expect(ended.message?.endedAt == .seconds(2.75))
        #expect(ended.label?.text == "a")
        #expect(engine.overlay(at: .seconds(3.299_999_999)).phase == .rotatingIn)

        let hiding = engine.overlay(at: .seconds(3.3))
        #expect(hiding.phase == .hiding)
        #expect(hiding.orientation == .landscapeLeft)
        #expect(hiding.alpha == 1)
        #expect(hiding.animation == .contentOffset(from: 0, to: -20, start: 3.3, duration: 0.25))
        #expect(engine.overlay(at: .seconds(3.55)).phase == .hidden)
    }

    /// A message whose time ends during a rotation is replaced by the next one when rotatingIn ends,
    /// and the next one's time starts then.
    @Test func messageEndsDuringRotationThenReplaced() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        engine.changeOrientation(to: .landscapeLeft, at: .seconds(2.5))
        try engine.posted(.message("b", kind: .sent), at: .seconds(2.6))

        let waiting = engine.overlay(at: .seconds(3))
        #expect(waiting.message?.id == 1)
        #expect(waiting.queued == 1)

        let replaced = engine.overlay(at: .seconds(3.3))
        #expect(replaced.phase == .visible)
        #expect(replaced.message?.id == 2)
        #expect(replaced.message?.displayStartedAt == .seconds(3.3))
        #expect(replaced.queued == 0)
        #expect(engine.overlay(at: .seconds(5.299_999_999)).message?.id == 2)
        #expect(engine.overlay(at: .seconds(5.3)).phase == .hiding)
    }

    /// When the message's end and rotatingIn's end fall on one instant, the message ends first and
    /// the overlay hides at that instant: one version for each deadline.
    @Test func messageEndTiesWithRotationEnd() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        engine.changeOrientation(to: .landscapeLeft, at: .seconds(1.95))
        engine.advance(to: .seconds(2.75 - 0.000_000_001))
        let version = engine.version
        #expect(engine.phase == .rotatingIn)

        engine.advance(to: .seconds(2.75))
        #expect(engine.version == version + 2)
        #expect(engine.phase == .hiding)
        #expect(engine.message(id: 1)?.state == .done)
        #expect(engine.message(id: 1)?.endedAt == .seconds(2.75))
        #expect(engine.transition?.start == .seconds(2.75))
    }

    /// A sticky message's time can end during a rotation too: it ends `expired` there.
    @Test func stickyExpiresDuringRotation() throws {
        var engine = makeEngine { $0.maxStickyDuration = .seconds(10) }
        try engine.posted(.message("Sending…", kind: .sending), at: .seconds(0))
        engine.changeOrientation(to: .landscapeLeft, at: .seconds(10))
        let overlay = engine.overlay(at: .seconds(10.25))
        #expect(overlay.phase == .rotatingOut)
        #expect(overlay.message?.state == .expired)
        #expect(engine.overlay(at: .seconds(10.8)).phase == .hiding)
    }

    /// rotationDuration is configurable.
    @Test func configuredRotationDuration() throws {
        var engine = makeEngine { $0.rotationDuration = .seconds(1) }
        try engine.posted(.message("a", duration: 100), at: .seconds(0))
        engine.changeOrientation(to: .landscapeLeft, at: .seconds(1))
        #expect(engine.overlay(at: .seconds(1.5)).alpha == 0.5)
        #expect(engine.overlay(at: .seconds(2)).phase == .rotatingIn)
        #expect(engine.overlay(at: .seconds(3)).phase == .visible)
    }

    /// With show style none every change is instant: a rotation applies at its event, alpha stays 1.
    @Test func instantWithShowStyleNone() throws {
        var engine = makeEngine { $0.showStyle = .none }
        try engine.posted(.message("a"), at: .seconds(0))
        engine.changeOrientation(to: .landscapeLeft, at: .seconds(1))
        let overlay = engine.overlay(at: .seconds(1))
        #expect(overlay.phase == .visible)
        #expect(overlay.orientation == .landscapeLeft)
        #expect(overlay.alpha == 1)
        #expect(overlay.animation == nil)
        #expect(overlay.version == 2)
    }
}
