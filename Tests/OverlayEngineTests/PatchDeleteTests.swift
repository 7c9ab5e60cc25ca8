import Testing

@testable import OverlayEngine

/// PATCH and the shown message's timer (MODEL §3, made complete in docs/BEHAVIOUR.md). The default
/// timeline: a message posted at 0 is fully shown at 0.25, when its time starts.
@Suite("PATCH (MODEL §3)")
struct PatchTests {
    /// Setting `duration` restarts the timer at the PATCH with that duration.
    @Test func durationRestartsTimer() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        let patched = try engine.patched(1, MessageInput(duration: .seconds(5)), at: .seconds(1))
        #expect(patched.duration == .seconds(5))
        #expect(patched.deadline == .seconds(6))
        #expect(engine.overlay(at: .seconds(5.999_999_999)).phase == .visible)
        #expect(engine.overlay(at: .seconds(6)).phase == .hiding)
        #expect(engine.overlay(at: .seconds(6)).message?.state == .done)
    }

    /// Setting `duration` on a sticky message makes it finite: it ends `done` that long after the PATCH.
    @Test func durationEndsStickiness() throws {
        var engine = makeEngine()
        try engine.posted(.message("Sending…", kind: .sending), at: .seconds(0))
        try engine.patched(1, MessageInput(duration: .seconds(10)), at: .seconds(5))
        #expect(engine.overlay(at: .seconds(14.999_999_999)).phase == .visible)
        #expect(engine.overlay(at: .seconds(15)).message?.state == .done)
    }

    /// Turning the shown sticky message into a finite kind restarts its timer with that kind's
    /// duration: sent 2.0, failed 3.0, info 2.5.
    @Test(arguments: [(MessageKind.sent, 2.0), (.failed, 3.0), (.info, 2.5)])
    func stickyToFiniteRestartsTimer(kind: MessageKind, seconds: Double) throws {
        var engine = makeEngine()
        try engine.posted(.message("Sending…", kind: .sending), at: .seconds(0))
        try engine.patched(1, MessageInput(kind: kind, text: "Done"), at: .seconds(10))
        #expect(engine.overlay(at: .seconds(10 + seconds - 0.000_000_001)).phase == .visible)
        let ended = engine.overlay(at: .seconds(10 + seconds))
        #expect(ended.phase == .hiding)
        #expect(ended.message?.state == .done)
        #expect(ended.message?.kind == kind)
    }

    /// A sticky progress message turned into `sent` ends 2.0 s after the PATCH.
    @Test func progressToSentRestartsTimer() throws {
        var engine = makeEngine()
        try engine.posted(.message("Downloading", kind: .progress, progress: 0.5), at: .seconds(0))
        try engine.patched(1, MessageInput(kind: .sent, text: "Downloaded"), at: .seconds(7))
        #expect(engine.overlay(at: .seconds(9)).message?.state == .done)
    }

    /// A text alone leaves the timer as it is.
    @Test func textKeepsTimer() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        let patched = try engine.patched(1, MessageInput(text: "  b  "), at: .seconds(1))
        #expect(patched.text == "b")
        #expect(patched.deadline == .seconds(2.75))
        #expect(engine.overlay(at: .seconds(1)).label?.text == "b")
        #expect(engine.overlay(at: .seconds(2.749_999_999)).phase == .visible)
        #expect(engine.overlay(at: .seconds(2.75)).phase == .hiding)
    }

    /// A progress below 1 alone leaves the timer as it is, finite or sticky.
    @Test func progressKeepsTimer() throws {
        var engine = makeEngine()
        try engine.posted(.message("a", progress: 0.25), at: .seconds(0))
        try engine.patched(1, MessageInput(progress: 0.75), at: .seconds(1))
        #expect(engine.overlay(at: .seconds(1)).progressBar?.frame.width == 576)
        #expect(engine.overlay(at: .seconds(2.75)).phase == .hiding)

        var sticky = makeEngine()
        try sticky.posted(.message("Downloading", kind: .progress, progress: 0.25), at: .seconds(0))
        try sticky.patched(1, MessageInput(progress: 0.75), at: .seconds(100))
        #expect(sticky.overlay(at: .seconds(300.249_999_999)).phase == .visible)
        #expect(sticky.overlay(at: .seconds(300.25)).message?.state == .expired)
    }

    /// A progress update to 1 ends the message completeDuration (1.0) after the PATCH, whatever its kind.
    @Test(arguments: [MessageKind.progress, .sending, .info])
    func progressToOneCompletes(kind: MessageKind) throws {
        var engine = makeEngine()
        try engine.posted(.message("Working", kind: kind, progress: 0.5), at: .seconds(0))
        try engine.patched(1, MessageInput(progress: 1), at: .seconds(0.5))
        #expect(engine.overlay(at: .seconds(1.499_999_999)).phase == .visible)
        let done = engine.overlay(at: .seconds(1.5))
        #expect(done.phase == .hiding)
        #expect(done.message?.state == .done)
    }

    /// `duration` wins over a progress reaching 1 in the same PATCH.
    @Test func durationWinsOverCompletion() throws {
        var engine = makeEngine()
        try engine.posted(.message("Downloading", kind: .progress, progress: 0.5), at: .seconds(0))
        try engine.patched(1, MessageInput(progress: 1, duration: .seconds(4)), at: .seconds(1))
        #expect(engine.overlay(at: .seconds(4.999_999_999)).phase == .visible)
        #expect(engine.overlay(at: .seconds(5)).phase == .hiding)
    }

    /// One finite kind to another restarts the timer with the new kind's duration: a `failed` is
    /// seen for its full 3 s.
    @Test func finiteKindChangeRestartsTimer() throws {
        var engine = makeEngine()
        try engine.posted(.message("Sent", kind: .sent), at: .seconds(0))
        try engine.patched(1, MessageInput(kind: .failed, text: "Failed"), at: .seconds(2))
        #expect(engine.overlay(at: .seconds(4.999_999_999)).phase == .visible)
        #expect(engine.overlay(at: .seconds(5)).phase == .hiding)
    }

    /// Finite to sticky: it expires maxStickySeconds (300) after its display started.
    @Test func finiteToStickyExpires() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.patched(1, MessageInput(kind: .sending), at: .seconds(1))
        #expect(engine.overlay(at: .seconds(300.249_999_999)).phase == .visible)
        let expired = engine.overlay(at: .seconds(300.25))
        #expect(expired.message?.state == .expired)
        #expect(expired.activity == true)
    }

    /// A PATCH during the show animation changes the fields; the timer starts at the show's end.
    @Test func patchDuringShow() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        let patched = try engine.patched(1, MessageInput(duration: .seconds(5)), at: .seconds(0.1))
        #expect(patched.deadline == nil)
        #expect(engine.overlay(at: .seconds(5.249_999_999)).phase == .visible)
        #expect(engine.overlay(at: .seconds(5.25)).phase == .hiding)
    }

    /// A PATCH of a queued message changes its fields; its timer starts when its display starts.
    @Test func patchQueued() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.posted(.message("b", kind: .sending), at: .seconds(0))
        let patched = try engine.patched(2, MessageInput(kind: .failed, text: "b failed"), at: .seconds(1))
        #expect(patched.state == .queued)
        #expect(patched.kind == .failed)
        #expect(patched.deadline == nil)
        let shown = engine.overlay(at: .seconds(2.75))
        #expect(shown.message?.id == 2)
        #expect(shown.label?.text == "b failed")
        #expect(engine.overlay(at: .seconds(5.749_999_999)).phase == .visible)
        #expect(engine.overlay(at: .seconds(5.75)).phase == .hiding)
    }

    /// A PATCH that changes nothing answers the message and does not bump the version.
    @Test func noChange() throws {
        var engine = makeEngine()
        try engine.posted(.message("a", kind: .sent), at: .seconds(0))
        engine.advance(to: .seconds(1))
        let version = engine.version
        let same = try engine.patched(1, MessageInput(kind: .sent, text: "a"), at: .seconds(1))
        let empty = try engine.patched(1, MessageInput(), at: .seconds(1))
        #expect(same == engine.message(id: 1))
        #expect(empty == engine.message(id: 1))
        #expect(engine.version == version)
        #expect(engine.nextDeadline == .seconds(2.25))
    }

    /// `progress: null` removes the progress bar.
    @Test func nullProgressRemovesBar() throws {
        var engine = makeEngine()
        try engine.posted(.message("a", progress: 0.5), at: .seconds(0))
        #expect(engine.overlay(at: .seconds(1)).progressBar != nil)
        try engine.patched(1, MessageInput(progress: .some(nil)), at: .seconds(1))
        #expect(engine.overlay(at: .seconds(1)).progressBar == nil)
        #expect(engine.message(id: 1)?.progress == nil)
    }

    /// A progress message always has a progress: `null` there is refused; turning a message into a
    /// progress message gives it progress 0.
    @Test func progressMessageKeepsProgress() throws {
        var engine = makeEngine()
        try engine.posted(.message("Downloading", kind: .progress, progress: 0.5), at: .seconds(0))
        let version = engine.version
        let refused = engine.update(id: 1, with: MessageInput(progress: .some(nil)), at: .seconds(0)).value
        #expect(refused.refusedField == "progress")
        #expect(engine.version == version)
        #expect(engine.message(id: 1)?.progress == 0.5)

        var other = makeEngine()
        try other.posted(.message("a"), at: .seconds(0))
        let converted = try other.patched(1, MessageInput(kind: .progress), at: .seconds(0))
        #expect(converted.progress == 0)
        #expect(other.overlay(at: .seconds(0.25)).progressBar?.frame.width == 0)
    }

    /// A PATCH of an ended message is refused as ended (409); of an unknown id, as not found (404).
    @Test func endedOrUnknown() throws {
        var engine = makeEngine()
        try engine.posted(.message("a", kind: .sent), at: .seconds(0))
        let ended = engine.update(id: 1, with: MessageInput(text: "b"), at: .seconds(10)).value
        let unknown = engine.update(id: 2, with: MessageInput(text: "b"), at: .seconds(10)).value
        #expect(ended == .failure(.messageEnded(id: 1, state: .done)))
        #expect(unknown == .failure(.messageNotFound(id: 2)))
    }
}

/// DELETE (MODEL §3): a queued message is cancelled; the shown one ends now and the next replaces it
/// at once, or the overlay hides (during a rotation, when `rotatingIn` ends).
@Suite("DELETE (MODEL §3)")
struct DeleteTests {
    /// A queued message is cancelled and leaves the queue; the shown one is untouched.
    @Test func queued() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.posted(.message("b"), at: .seconds(0))
        try engine.posted(.message("c"), at: .seconds(0))
        let cancelled = try engine.deleted(2, at: .seconds(1))
        #expect(cancelled.id == 2)
        #expect(cancelled.state == .cancelled)
        #expect(cancelled.endedAt == .seconds(1))
        #expect(engine.queue.map(\.id) == [3])
        #expect(engine.message(id: 2)?.state == .cancelled)
        let overlay = engine.overlay(at: .seconds(1))
        #expect(overlay.message?.id == 1)
        #expect(overlay.queued == 1)
        #expect(engine.overlay(at: .seconds(2.75)).message?.id == 3)
    }

    /// The shown message ends now and the next replaces it at once, with no animation, its time
    /// starting then.
    @Test func shownWithNext() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.posted(.message("b", kind: .sent), at: .seconds(0))
        let cancelled = try engine.deleted(1, at: .seconds(1))
        #expect(cancelled.state == .cancelled)
        #expect(cancelled.endedAt == .seconds(1))

        let overlay = engine.overlay(at: .seconds(1))
        #expect(overlay.phase == .visible)
        #expect(overlay.message?.id == 2)
        #expect(overlay.message?.displayStartedAt == .seconds(1))
        #expect(overlay.animation == nil)
        #expect(engine.overlay(at: .seconds(3)).phase == .hiding)
    }

    /// The shown message with an empty queue: the overlay hides from now, over the full 0.25 s.
    @Test func shownAlone() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.deleted(1, at: .seconds(1))
        let overlay = engine.overlay(at: .seconds(1))
        #expect(overlay.phase == .hiding)
        #expect(overlay.message?.state == .cancelled)
        #expect(overlay.animation == .contentOffset(from: 0, to: -20, start: 1, duration: 0.25))
        #expect(engine.overlay(at: .seconds(1.25)).phase == .hidden)
    }

    /// The shown message during its show, with one waiting: the next takes over the running show and
    /// its time starts at the show's end.
    @Test func shownDuringShowWithNext() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.posted(.message("b", kind: .sent), at: .seconds(0))
        try engine.deleted(1, at: .seconds(0.125))
        let overlay = engine.overlay(at: .seconds(0.125))
        #expect(overlay.phase == .showing)
        #expect(overlay.message?.id == 2)
        #expect(overlay.contentOffset == -10)
        #expect(engine.overlay(at: .seconds(0.25)).message?.displayStartedAt == .seconds(0.25))
        #expect(engine.overlay(at: .seconds(2.25)).phase == .hiding)
    }

    /// An ended message is refused as ended (409), also a second DELETE; an unknown id as not found (404).
    @Test func endedOrUnknown() throws {
        var engine = makeEngine()
        try engine.posted(.message("a", kind: .sent), at: .seconds(0))
        try engine.posted(.message("b"), at: .seconds(0))
        try engine.deleted(2, at: .seconds(0))
        let version = engine.version
        let done = engine.delete(id: 1, at: .seconds(2.25)).value
        let again = engine.delete(id: 2, at: .seconds(2.25)).value
        let unknown = engine.delete(id: 99, at: .seconds(2.25)).value
        #expect(done == .failure(.messageEnded(id: 1, state: .done)))
        #expect(again == .failure(.messageEnded(id: 2, state: .cancelled)))
        #expect(unknown == .failure(.messageNotFound(id: 99)))
        // Only the deadlines moved the version: the show's end at 0.25 and the message's end at 2.25.
        #expect(engine.version == version + 2)
    }

    /// The departing message while the overlay hides has ended: deleting it is refused as ended.
    @Test func departingWhileHiding() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        let refused = engine.delete(id: 1, at: .seconds(2.8)).value
        #expect(refused == .failure(.messageEnded(id: 1, state: .done)))
        #expect(engine.phase == .hiding)
    }

    /// During a rotation the deleted message ends at once but stays drawn; the next message replaces
    /// it when rotatingIn ends, and its time starts then.
    @Test func duringRotationWithNext() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.posted(.message("b", kind: .sent), at: .seconds(0))
        engine.changeOrientation(to: .landscapeLeft, at: .seconds(1))
        let cancelled = try engine.deleted(1, at: .seconds(1.2))
        #expect(cancelled.state == .cancelled)
        #expect(cancelled.endedAt == .seconds(1.2))

        let drawn = engine.overlay(at: .seconds(1.6))
        #expect(drawn.phase == .rotatingIn)
        #expect(drawn.message?.id == 1)
        #expect(drawn.message?.state == .cancelled)
        #expect(drawn.queued == 1)
        #expect(engine.liveMessages.map(\.id) == [2])
        let again = engine.delete(id: 1, at: .seconds(1.6)).value
        #expect(again == .failure(.messageEnded(id: 1, state: .cancelled)))

        let replaced = engine.overlay(at: .seconds(1.8))
        #expect(replaced.phase == .visible)
        #expect(replaced.message?.id == 2)
        #expect(replaced.message?.displayStartedAt == .seconds(1.8))
        #expect(engine.overlay(at: .seconds(3.8)).phase == .hiding)
    }

    /// During a rotation with nothing waiting, the overlay hides when rotatingIn ends.
    @Test func duringRotationAlone() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        engine.changeOrientation(to: .landscapeLeft, at: .seconds(1))
        try engine.deleted(1, at: .seconds(1.2))
        #expect(engine.overlay(at: .seconds(1.799_999_999)).phase == .rotatingIn)
        let hiding = engine.overlay(at: .seconds(1.8))
        #expect(hiding.phase == .hiding)
        #expect(hiding.animation?.start == .seconds(1.8))
        #expect(engine.overlay(at: .seconds(2.05)).phase == .hidden)
    }

    /// A message posted during the rotation, after the DELETE, replaces the deleted one when
    /// rotatingIn ends.
    @Test func postAfterDeleteDuringRotation() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        engine.changeOrientation(to: .landscapeLeft, at: .seconds(1))
        try engine.deleted(1, at: .seconds(1.2))
        try engine.posted(.message("b"), at: .seconds(1.3))
        #expect(engine.overlay(at: .seconds(1.3)).message?.id == 1)
        let replaced = engine.overlay(at: .seconds(1.8))
        #expect(replaced.phase == .visible)
        #expect(replaced.message?.id == 2)
    }
}
