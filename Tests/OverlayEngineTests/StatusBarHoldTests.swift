import Testing

@testable import OverlayEngine

/// The hold a hidden status bar puts on the overlay (docs/STATUSBAR.md), as scripts on the default
/// ipad (h = 20) in portrait: the overlay slides in and out in 0.25 s, an `info` message stays
/// 2.5 s, the bar hides and shows in 0.25 s. A message posted at 0 is shown 0 → 0.25 and displayed
/// from 0.25.
@Suite("Status bar: the hold on the overlay")
struct StatusBarHoldTests {
    /// A fade hide of a visible overlay: the overlay fades beside the bar (alpha 1 → 0,
    /// contentOffset 0) over the bar's 0.25 s, its message is queued again at the head with the
    /// same id and no timers, and nothing shows until the bar shows. The PUT is one version, the
    /// ends of the overlay's hide and of the bar's one each.
    @Test func fadeHideOfAVisibleOverlay() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        #expect(engine.at(1).version == 2)
        let effect = try engine.setBar(hidden: true, animation: .fade, at: 1)
        #expect(effect.visibility == .hide)

        let start = engine.at(1)
        #expect(start.version == 3)
        #expect(start.held)
        #expect(start.phase == .hiding)
        #expect(start.alpha == 1)
        #expect(start.contentOffset == 0)
        #expect(start.animation == .alpha(from: 1, to: 0, start: 1, duration: 0.25))
        #expect(start.message?.id == 1)
        #expect(start.message?.state == .queued)
        #expect(start.queued == 1)
        #expect(start.statusBar.hidden)
        #expect(start.statusBar.alpha == 1)
        #expect(start.statusBar.animation == .alpha(from: 1, to: 0, start: 1, duration: 0.25))
        let queued = try #require(engine.liveMessages.first)
        #expect(engine.liveMessages.count == 1)
        #expect(queued.state == .queued)
        #expect(queued.shownAt == nil)
        #expect(queued.displayStartedAt == nil)
        #expect(queued.deadline == nil)

        let middle = engine.at(1.125)
        #expect(middle.alpha == 0.5)
        #expect(middle.contentOffset == 0)
        #expect(middle.statusBar.alpha == 0.5)
        #expect(middle.statusBar.offset == 0)
        #expect(middle.version == 3)

        let end = engine.at(1.25)
        #expect(end.phase == .hidden)
        #expect(end.message == nil)
        #expect(end.alpha == 0)
        #expect(end.statusBar.alpha == 0)
        #expect(end.statusBar.animation == nil)
        #expect(end.version == 5)
        #expect(end.held)
        engine.advance(to: .seconds(100))
        #expect(engine.at(100).version == 5)
        #expect(engine.at(100).queued == 1)
        #expect(engine.nextDeadline == nil)
    }

    /// A slide hide: the overlay's contentOffset goes 0 → −h beside the bar's offset, alpha 1.
    @Test func slideHideOfAVisibleOverlay() throws {
        var engine = makeEngine { $0.showStyle = .fade }
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.setBar(hidden: true, animation: .slide, at: 1)
        let start = engine.at(1)
        #expect(start.animation == .contentOffset(from: 0, to: -20, start: 1, duration: 0.25))
        #expect(start.statusBar.animation == .contentOffset(from: 0, to: -20, start: 1, duration: 0.25))
        let middle = engine.at(1.125)
        #expect(middle.contentOffset == -10)
        #expect(middle.alpha == 1)
        #expect(middle.label?.frame.y == -10)
        #expect(middle.statusBar.offset == -10)
        #expect(middle.statusBar.alpha == 1)
        let end = engine.at(1.25)
        #expect(end.phase == .hidden)
        #expect(end.statusBar.offset == -20)
        #expect(end.statusBar.alpha == 0)
    }

    /// With `none` the bar and the overlay hide at once: one version, no deadline.
    @Test func noneHidesAtOnce() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.setBar(hidden: true, animation: StatusBarAnimation.none, at: 1)
        let now = engine.at(1)
        #expect(now.phase == .hidden)
        #expect(now.message == nil)
        #expect(now.queued == 1)
        #expect(now.statusBar.alpha == 0)
        #expect(now.statusBar.offset == 0)
        #expect(now.statusBar.animation == nil)
        #expect(now.version == 3)
        #expect(engine.nextDeadline == nil)
    }

    /// The bar shows again: the head of the queue starts its own show (a slide) at the instant the
    /// bar's fade starts, its display time starting over at the end of that show.
    @Test func showAgainWithAQueue() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.posted(.message("b"), at: .seconds(0.5))
        try engine.setBar(hidden: true, animation: .fade, at: 1)
        #expect(engine.liveMessages.map(\.id) == [1, 2])
        #expect(engine.at(2).version == 6)
        let effect = try engine.setBar(hidden: false, at: 2)
        #expect(effect.visibility == .show)

        let start = engine.at(2)
        #expect(start.version == 7)
        #expect(start.held == false)
        #expect(start.phase == .showing)
        #expect(start.message?.id == 1)
        #expect(start.message?.state == .showing)
        #expect(start.message?.shownAt == .seconds(2))
        #expect(start.animation == .contentOffset(from: -20, to: 0, start: 2, duration: 0.25))
        #expect(start.statusBar.animation == .alpha(from: 0, to: 1, start: 2, duration: 0.25))
        #expect(start.queued == 1)
        let middle = engine.at(2.125)
        #expect(middle.contentOffset == -10)
        #expect(middle.statusBar.alpha == 0.5)
        let end = engine.at(2.25)
        #expect(end.phase == .visible)
        #expect(end.statusBar.alpha == 1)
        #expect(end.version == 9)
        #expect(end.message?.displayStartedAt == .seconds(2.25))
        // a's whole 2.5 s again, then b replaces it.
        #expect(engine.at(4.74).message?.id == 1)
        #expect(engine.at(4.75).message?.id == 2)
    }

    /// A hide during `showing` completes the show at once: the overlay hides from fully shown
    /// (contentOffset 0, not the −15 it had reached) beside the bar.
    @Test func hideDuringShowing() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        #expect(engine.at(0.0625).contentOffset == -15)
        try engine.setBar(hidden: true, animation: .slide, at: 0.0625)
        let start = engine.at(0.0625)
        #expect(start.phase == .hiding)
        #expect(start.contentOffset == 0)
        #expect(start.animation == .contentOffset(from: 0, to: -20, start: 0.0625, duration: 0.25))
        #expect(start.message?.state == .queued)
        #expect(engine.liveMessages.first?.displayStartedAt == nil)
        #expect(engine.at(0.3125).phase == .hidden)
    }

    /// A hide during `rotatingOut` completes the rotation at once: the overlay takes the target
    /// orientation, then fades beside the bar from alpha 1; the bar's frame is the new one.
    @Test func hideDuringRotatingOut() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        engine.changeOrientation(to: .landscapeLeft, at: .seconds(1))
        #expect(engine.at(1.2).alpha == 0.5)
        try engine.setBar(hidden: true, animation: .fade, at: 1.2)
        let start = engine.at(1.2)
        #expect(start.phase == .hiding)
        #expect(start.orientation == .landscapeLeft)
        #expect(start.rotation == -90)
        #expect(start.frame == Rect(x: 0, y: 0, width: 20, height: 1024))
        #expect(start.statusBar.frame == Rect(x: 0, y: 0, width: 20, height: 1024))
        #expect(start.alpha == 1)
        #expect(start.animation == .alpha(from: 1, to: 0, start: 1.2, duration: 0.25))
        #expect(engine.rotationTarget == nil)
        #expect(engine.state.orientation == .landscapeLeft)
        #expect(engine.at(1.45).phase == .hidden)
        #expect(engine.at(1.45).orientation == .landscapeLeft)
    }

    /// A hide during `rotatingIn` completes the rotation at once, then slides beside the bar.
    @Test func hideDuringRotatingIn() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        engine.changeOrientation(to: .portraitUpsideDown, at: .seconds(1))
        #expect(engine.at(1.6).phase == .rotatingIn)
        #expect(engine.at(1.6).alpha == 0.5)
        try engine.setBar(hidden: true, animation: .slide, at: 1.6)
        let start = engine.at(1.6)
        #expect(start.phase == .hiding)
        #expect(start.alpha == 1)
        #expect(start.orientation == .portraitUpsideDown)
        #expect(start.animation == .contentOffset(from: 0, to: -20, start: 1.6, duration: 0.25))
        #expect(start.statusBar.frame == Rect(x: 0, y: 1004, width: 768, height: 20))
        #expect(engine.at(1.85).phase == .hidden)
    }

    /// A message whose time ended during a rotation has ended: the hold hides it without queueing
    /// it again, and a show of the bar then has nothing to show.
    @Test func endedMessageIsNotQueuedAgain() throws {
        var engine = makeEngine()
        try engine.posted(.message("a", duration: 1), at: .seconds(0))
        engine.changeOrientation(to: .landscapeRight, at: .seconds(1.1))
        #expect(engine.at(1.3).message?.state == .done)
        try engine.setBar(hidden: true, animation: .fade, at: 1.3)
        let hiding = engine.at(1.4)
        #expect(hiding.phase == .hiding)
        #expect(hiding.message?.state == .done)
        #expect(hiding.queued == 0)
        #expect(engine.liveMessages.isEmpty)
        try engine.setBar(hidden: false, at: 2)
        #expect(engine.at(2).phase == .hidden)
        #expect(engine.message(id: 1)?.state == .done)
    }

    /// A hide while the overlay hides on its own: it goes on hiding as it was; a post then waits,
    /// and shows when the bar shows.
    @Test func hideDuringHiding() throws {
        var engine = makeEngine()
        try engine.posted(.message("a", duration: 1), at: .seconds(0))
        #expect(engine.at(1.3).phase == .hiding)
        let before = engine.at(1.3).animation
        try engine.setBar(hidden: true, animation: .fade, at: 1.3)
        let after = engine.at(1.3)
        #expect(after.phase == .hiding)
        #expect(after.animation == before)
        #expect(after.contentOffset == -4)
        #expect(after.message?.state == .done)
        try engine.posted(.message("b"), at: .seconds(1.35))
        let hidden = engine.at(1.5)
        #expect(hidden.phase == .hidden)
        #expect(hidden.queued == 1)
        #expect(engine.at(3).phase == .hidden)
        try engine.setBar(hidden: false, at: 3)
        #expect(engine.at(3).phase == .showing)
        #expect(engine.at(3).message?.id == 2)
    }

    /// The bar shows again before the overlay's hide beside it ends: the overlay finishes hiding,
    /// then the head of the queue shows right away, as a message posted during a hide does.
    @Test func showAgainWhileTheOverlayStillHides() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.setBar(hidden: true, animation: .fade, at: 1)
        try engine.setBar(hidden: false, at: 1.1)
        let between = engine.at(1.2)
        #expect(between.phase == .hiding)
        #expect(between.held == false)
        #expect(isClose(between.alpha, 0.2))
        #expect(between.statusBar.alpha == 1)
        let shown = engine.at(1.25)
        #expect(shown.phase == .showing)
        #expect(shown.message?.id == 1)
        #expect(shown.animation == .contentOffset(from: -20, to: 0, start: 1.25, duration: 0.25))
    }

    /// While held, a post queues even though the overlay is hidden; several keep their order.
    @Test func postWhileHeld() throws {
        var engine = makeEngine { $0.statusBar.hiddenAtLaunch = true }
        #expect(engine.at(0).held)
        let a = try engine.posted(.message("a"), at: .seconds(0))
        #expect(a.state == .queued)
        try engine.posted(.message("b"), at: .seconds(1))
        let now = engine.at(1)
        #expect(now.phase == .hidden)
        #expect(now.message == nil)
        #expect(now.queued == 2)
        #expect(now.version == 2)
        #expect(engine.nextDeadline == nil)
        #expect(engine.liveMessages.map(\.id) == [1, 2])
        // PATCH and DELETE work on the held queue as always.
        try engine.patched(1, MessageInput(text: "a!"), at: .seconds(2))
        try engine.deleted(2, at: .seconds(2))
        #expect(engine.liveMessages.map(\.text) == ["a!"])
    }

    /// An immediate message while held goes to the head of the queue, and shows first.
    @Test func immediateWhileHeld() throws {
        var engine = makeEngine { $0.statusBar.hiddenAtLaunch = true }
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.posted(.message("now", immediate: true), at: .seconds(1))
        #expect(engine.liveMessages.map(\.id) == [2, 1])
        #expect(engine.at(1).phase == .hidden)
        try engine.setBar(hidden: false, animation: .fade, at: 2)
        #expect(engine.at(2).message?.id == 2)
        #expect(engine.at(2).statusBar.animation == .alpha(from: 0, to: 1, start: 2, duration: 0.25))
    }

    /// The queue's bound: while held a post beyond `maxQueue` is refused, with a retry after five
    /// seconds (the queue moves when the bar shows, which only its sender knows); the message the
    /// hold sends back keeps its place beyond the bound.
    @Test func maxQueueWhileHeld() throws {
        var engine = makeEngine { $0.maxQueue = 1 }
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.posted(.message("b"), at: .seconds(0))
        try engine.setBar(hidden: true, animation: .fade, at: 1)
        #expect(engine.liveMessages.map(\.id) == [1, 2])
        let refused = engine.post(.message("c"), at: .seconds(2)).value
        #expect(refused == .failure(.queueFull(limit: 1, retryAfter: .seconds(5))))
        #expect(engine.liveMessages.count == 2)
    }

    /// A sticky message held and shown again: its `maxStickySeconds` starts over when shown again.
    @Test func stickyMessageHeldAndShownAgain() throws {
        var engine = makeEngine()
        try engine.posted(.message("Sending…", kind: .sending), at: .seconds(0))
        engine.advance(to: .seconds(1))
        #expect(engine.current?.deadline == .seconds(300.25))
        try engine.setBar(hidden: true, animation: StatusBarAnimation.none, at: 10)
        #expect(engine.liveMessages.first?.deadline == nil)
        try engine.setBar(hidden: false, at: 20)
        engine.advance(to: .seconds(20.25))
        #expect(engine.phase == .visible)
        let shown = try #require(engine.current)
        #expect(shown.id == 1)
        #expect(shown.displayStartedAt == .seconds(20.25))
        #expect(shown.deadline == .seconds(320.25))
        #expect(shown.expiresAtDeadline)
        #expect(engine.at(320).message?.state == .showing)
        #expect(engine.message(id: 1)?.state == .showing)
    }

    /// A progress message held, updated while queued, and shown again with its progress; it stays
    /// (sticky) until its progress reaches 1, then `completeDuration`.
    @Test func progressMessageHeldAndShownAgain() throws {
        var engine = makeEngine()
        try engine.posted(.message("Downloading", kind: .progress, progress: 0.5), at: .seconds(0))
        try engine.setBar(hidden: true, animation: .slide, at: 1)
        #expect(engine.at(1.125).progressBar?.frame.y == 8)
        try engine.patched(1, MessageInput(progress: 0.8), at: .seconds(1.5))
        try engine.setBar(hidden: false, at: 2)
        #expect(engine.at(2.25).progressBar?.progress == 0.8)
        #expect(engine.at(60).message?.id == 1)
        try engine.patched(1, MessageInput(progress: 1), at: .seconds(61))
        #expect(engine.at(61.99).phase == .visible)
        #expect(engine.at(62).phase == .hiding)
    }

    /// Rotation while hidden and held: the overlay and the bar take the new frame at once.
    @Test func rotationWhileHidden() throws {
        var engine = makeEngine()
        try engine.setBar(hidden: true, animation: .slide, at: 0)
        try engine.posted(.message("a"), at: .seconds(1))
        let changed = engine.changeOrientation(to: .landscapeRight, at: .seconds(2)).value
        #expect(changed)
        let now = engine.at(2)
        #expect(now.phase == .hidden)
        #expect(now.frame == Rect(x: 748, y: 0, width: 20, height: 1024))
        #expect(now.statusBar.frame == Rect(x: 748, y: 0, width: 20, height: 1024))
        #expect(now.statusBar.offset == -20)
        #expect(now.queued == 1)
        try engine.setBar(hidden: false, at: 3)
        #expect(engine.at(3).label?.frame == Rect(x: 30, y: -20, width: 964, height: 20))
    }

    /// A rotation while the overlay hides beside the bar completes that hide at once; the message
    /// stays queued and the overlay draws nothing.
    @Test func rotationWhileHidingBesideTheBar() throws {
        var engine = makeEngine()
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.setBar(hidden: true, animation: .fade, at: 1)
        engine.changeOrientation(to: .landscapeLeft, at: .seconds(1.1))
        let now = engine.at(1.1)
        #expect(now.phase == .hidden)
        #expect(now.message == nil)
        #expect(now.label == nil)
        #expect(now.orientation == .landscapeLeft)
        #expect(now.statusBar.frame == Rect(x: 0, y: 0, width: 20, height: 1024))
        #expect(isClose(now.statusBar.alpha, 0.6))
        #expect(engine.liveMessages.map(\.state) == [.queued])
    }

    /// A device change while hidden moves both bars' frames; a running slide of the bar keeps its
    /// fraction in the new height, and so does the overlay's slide beside it.
    @Test func deviceChangeWhileHidden() throws {
        var engine = makeEngine { $0.presentation = .statusBar }
        try engine.posted(.message("a"), at: .seconds(0))
        try engine.setBar(hidden: true, animation: .slide, at: 1)
        engine.changeDevice(to: .iphoneNotch, at: .seconds(1.125))
        let middle = engine.at(1.125)
        #expect(middle.statusBar.offset == -22)
        #expect(middle.contentOffset == -22)
        #expect(middle.statusBar.frame == Rect(x: 0, y: 0, width: 375, height: 44))
        let end = engine.at(1.25)
        #expect(end.statusBar.offset == -44)
        engine.changeDevice(to: .iphone, at: .seconds(2))
        #expect(engine.at(2).statusBar.frame == Rect(x: 0, y: 0, width: 320, height: 20))
        #expect(engine.at(2).statusBar.offset == -20)
        #expect(engine.at(2).frame == Rect(x: 0, y: 0, width: 320, height: 20))
    }
}
