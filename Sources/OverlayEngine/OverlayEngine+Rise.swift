// MTStatusBarOverlay's message change: while the overlay stays visible, the old label rises out
// of the content area as the new one rises in from below it, and an immediate message waits until
// the shown one has been fully shown for `minimumVisible` (docs/MODEL.md §14).
extension OverlayEngine {
    /// Whether a rise runs: the label's offset is the running animation.
    public var isRising: Bool { transition?.property == .labelOffset }

    /// The height Hc of the content area in the presentation in effect: the distance a label rises.
    var contentHeight: Double {
        PresentationLayout.contentHeight(
            presentation, device: device, orientation: orientation, pillHeight: configuration.pillHeight)
    }

    /// Whether a change of the shown label at this moment rises rather than happens at once.
    var changeRises: Bool {
        configuration.messageChange == .rise && phase == .visible && configuration.riseDuration > .zero
    }

    /// Starts a rise from `outgoing`'s label at rest to the label of `current` as it is now.
    mutating func startRise(from outgoing: Message, at time: Instant) {
        // A label's resting y and height do not depend on the texts' widths: nothing is measured.
        let resting = layout(of: outgoing, measured: MeasuredText(title: 0, subtitle: outgoing.subtitle.map { _ in 0 }))
        rise = Rise(text: outgoing.text, restingY: resting.label.y, height: resting.label.height)
        transition = Transition(
            property: .labelOffset, from: contentHeight, to: 0, start: time, length: configuration.riseDuration)
    }

    /// The running rise ends now with the incoming label at rest: at its own end, and at once
    /// before a change, a rotation, a hide, a status-bar hide or a new frame, which all start from
    /// a label at rest. A message the rise brought in is fully shown from now: its time starts.
    mutating func completeRise(at time: Instant) {
        guard isRising else { return }
        transition = nil
        rise = nil
        if current?.displayStartedAt == nil { beginDisplay(at: time) }
    }

    /// The incoming label's offset from its resting y at `time`: Hc to 0 during a rise, else 0.
    func labelOffset(at time: Instant) -> Double {
        guard phase == .visible, let transition, transition.property == .labelOffset else { return 0 }
        return transition.value(at: time, curve: configuration.curve)
    }

    // MARK: - The shortest showing

    /// Whether an immediate message posted now waits at the head of the queue: the shown one has
    /// not yet been fully shown for `minimumVisible`.
    var immediateWaits: Bool {
        guard configuration.minimumVisible > .zero, phase != .hidden, phase != .hiding,
            current?.state.hasEnded == false
        else { return false }
        guard let start = current?.displayStartedAt else { return true }
        return now < start + configuration.minimumVisible
    }

    /// When the immediate message waiting at the head of the queue replaces the shown one: once
    /// that one has been fully shown for `minimumVisible`. An immediate message that has never been
    /// shown can only be at the head of the queue while another shows because it waits so.
    var minimumVisibleDeadline: Instant? {
        guard configuration.minimumVisible > .zero, phase != .hidden, phase != .hiding,
            let start = currentLiveDisplayStart,
            let head = queue.first, head.immediate, !head.hasBeenShown
        else { return nil }
        return start + configuration.minimumVisible
    }

    /// The shown message has been fully shown for `minimumVisible`: the waiting immediate one
    /// takes its place, as it would have when posted.
    mutating func minimumVisibleEnded(at time: Instant) {
        guard !queue.isEmpty else { return }
        preemptCurrent(with: queue.removeFirst())
    }
}
