// The app's status bar under the overlay as engine events, and the hold a hidden status bar puts
// on the overlay (docs/STATUSBAR.md, "What the status bar does to the overlay").
extension OverlayEngine {
    // MARK: - Events

    /// `PUT /statusbar` with `application` appearance: sets the bar's style, hidden flag or
    /// animation. A hide holds the overlay from its first instant; a show releases it.
    public mutating func setStatusBar(
        _ input: StatusBarInput, at time: Instant
    ) -> Applied<Result<StatusBarEffect, StatusBarError>> {
        changingStatusBar(at: time) { bar, now in bar.apply(input, at: now) }
    }

    /// `PUT /statusbar/controllers` with `controllers` appearance: keeps the hierarchy and lets it
    /// decide the bar's style and hidden flag again (`setNeedsStatusBarAppearanceUpdate`).
    public mutating func setControllers(
        _ hierarchy: ControllerHierarchy, at time: Instant
    ) -> Applied<Result<StatusBarEffect, StatusBarError>> {
        changingStatusBar(at: time) { bar, now in bar.apply(hierarchy, at: now) }
    }

    /// Reaches `time`, makes `change` to the bar, and lets the overlay follow what it did.
    private mutating func changingStatusBar(
        at time: Instant, _ change: (inout StatusBar, Instant) -> Result<StatusBarEffect, StatusBarError>
    ) -> Applied<Result<StatusBarEffect, StatusBarError>> {
        applying { engine in
            engine.reach(time)
            let result = change(&engine.statusBar, engine.now)
            if case .success(let effect) = result { engine.statusBarChanged(effect) }
            return result
        }
    }

    /// The status bar at `time` as `GET /statusbar` shows it, in the window's current frame.
    public func statusBarSnapshot(at time: Instant) -> StatusBarSnapshot {
        statusBar.snapshot(at: max(time, now), orientation: orientation, device: device)
    }

    // MARK: - The hold

    /// One version for whatever the bar's change does to the overlay; a change of style needs
    /// nothing more, since the overlay's colours are read from the bar's style.
    private mutating func statusBarChanged(_ effect: StatusBarEffect) {
        guard effect.changed else { return }
        switch effect.visibility {
        case .hide?: holdOverlay()
        case .show?: releaseOverlay()
        case nil: break
        }
        version += 1
        settle()
    }

    /// A hide started: a show or a rotation in progress completes at once, then a visible overlay
    /// hides beside the bar, with the bar's animation, start and length. Its message goes back
    /// to the head of the queue with its timers cleared, so that its display time (and a sticky
    /// message's `maxStickySeconds`) starts over when it shows again. The queue's bound does not
    /// apply: an accepted message is never dropped. An overlay that is hiding goes on hiding.
    private mutating func holdOverlay() {
        switch phase {
        case .hidden, .hiding:
            return
        case .showing:
            phase = .visible
            transition = nil
        case .rotatingOut, .rotatingIn:
            if let rotationTarget { orientation = rotationTarget }
            rotationTarget = nil
            phase = .visible
            transition = nil
        case .visible:
            completeRise(at: now)
        }
        leaving = current.take()
        // A message whose time ended during a rotation has ended for good: it is only drawn away.
        if var message = leaving, !message.state.hasEnded {
            message.state = .queued
            message.shownAt = nil
            message.displayStartedAt = nil
            message.deadline = nil
            message.expiresAtDeadline = false
            leaving = message
            enqueueAtHead(message)
        }
        // The overlay slides out by its own window's height Hw (h only in `statusBar`): to −Hw,
        // where a hidden overlay's content is.
        guard let hide = statusBar.overlayHide(statusBarHeight: windowHeight) else {
            finishHide(at: now)
            return
        }
        phase = .hiding
        transition = hide
    }

    /// A show started: a hidden overlay shows the head of the queue from this instant, with its
    /// own show animation. One still hiding shows it when that hide ends (`finishHide`).
    private mutating func releaseOverlay() {
        if phase == .hidden { showNextIfAny(at: now) }
    }
}
