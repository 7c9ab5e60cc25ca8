// The screen events (orientation, device) and the phases: showing, hiding, rotating, and the
// contentOffset and alpha they animate.
extension OverlayEngine {
    // MARK: - Events

    /// The interface orientation changes. Answers whether anything changed.
    @discardableResult
    public mutating func changeOrientation(to target: Orientation, at time: Instant) -> Applied<Bool> {
        applying { $0.applyOrientation(target, at: time) }
    }

    /// The screen changes to another device profile; the frame changes at once, with no animation.
    /// Answers whether anything changed.
    @discardableResult
    public mutating func changeDevice(to profile: DeviceProfile, at time: Instant) -> Applied<Bool> {
        applying { $0.applyDevice(profile, at: time) }
    }

    private mutating func applyOrientation(_ target: Orientation, at time: Instant) -> Bool {
        reach(time)
        switch phase {
        case .rotatingOut:
            guard target != rotationTarget else { return false }
            rotationTarget = target
        case .rotatingIn:
            guard target != orientation else { return false }
            startRotatingOut(from: motion(at: now).alpha, to: target, at: now)
        case .hidden:
            guard target != orientation else { return false }
            orientation = target
        case .showing:
            guard target != orientation else { return false }
            // Complete the show at once: the message is fully shown now, so its time starts now.
            phase = .visible
            transition = nil
            beginDisplay(at: now)
            startRotatingOut(from: 1, to: target, at: now)
        case .hiding:
            guard target != orientation else { return false }
            // Complete the hide at once, with no fade; a hidden overlay simply takes the new frame,
            // and a message that waited for the hide shows in it.
            orientation = target
            finishHide(at: now)
        case .visible:
            guard target != orientation else { return false }
            completeRise(at: now)
            startRotatingOut(from: 1, to: target, at: now)
        }
        version += 1
        settle()
        return true
    }

    /// The presentation changes (`PUT /presentation`); like a device, at once, with no animation.
    /// Answers whether anything changed.
    @discardableResult
    public mutating func changePresentation(to target: Presentation, at time: Instant) -> Applied<Bool> {
        applying { engine in
            engine.reach(time)
            guard target != engine.presentation else { return false }
            // A rise is measured in the old frame's content height: the new frame starts at rest.
            engine.completeRise(at: engine.now)
            let oldHeight = engine.windowHeight
            engine.presentation = target
            engine.rescaleSlide(from: oldHeight)
            engine.version += 1
            return true
        }
    }

    private mutating func applyDevice(_ profile: DeviceProfile, at time: Instant) -> Bool {
        reach(time)
        guard profile != device else { return false }
        completeRise(at: now)
        let oldHeight = windowHeight
        device = profile
        rescaleSlide(from: oldHeight)
        version += 1
        return true
    }

    /// A slide is measured in window heights: it keeps its fraction, in the new height.
    private mutating func rescaleSlide(from oldHeight: Double) {
        let height = windowHeight
        guard var slide = transition, slide.property == .contentOffset, oldHeight > 0, height != oldHeight else {
            return
        }
        slide.from = slide.from / oldHeight * height
        slide.to = slide.to / oldHeight * height
        transition = slide
    }

    // MARK: - Phases

    mutating func startShow(at time: Instant) {
        current?.markShown(at: time)
        let length = configuration.showLength
        guard length > .zero else {
            phase = .visible
            transition = nil
            beginDisplay(at: time)
            return
        }
        phase = .showing
        transition =
            configuration.showStyle.slides
            ? Transition(
                property: .contentOffset, from: -windowHeight, to: 0, start: time, length: length,
                bounces: configuration.showStyle == .bounce)
            : Transition(property: .alpha, from: 0, to: 1, start: time, length: length)
    }

    /// Hides from wherever the overlay is now: a hide that interrupts a show moves at the hide's
    /// speed over the distance that remains, as a rotation's fade-out does.
    mutating func startHide(at time: Instant) {
        completeRise(at: time)
        let height = windowHeight
        let state = motion(at: time)
        let next: Transition
        switch configuration.showStyle {
        case .slide, .bounce:
            let fraction = height > 0 ? (state.contentOffset + height) / height : 0
            next = Transition(
                property: .contentOffset, from: state.contentOffset, to: -height, start: time,
                length: configuration.hideLength.scaled(by: fraction))
        case .fade, .none:
            next = Transition(
                property: .alpha, from: state.alpha, to: 0, start: time,
                length: configuration.hideLength.scaled(by: state.alpha))
        }
        phase = .hiding
        transition = next
        if next.length <= .zero { finishHide(at: time) }
    }

    mutating func finishHide(at time: Instant) {
        phase = .hidden
        transition = nil
        // A hidden overlay is under no finger: the hold ends with it.
        heldSince = nil
        current = nil
        leaving = nil
        showNextIfAny(at: time)
    }

    /// Shows the head of the queue, unless the status bar holds the overlay.
    mutating func showNextIfAny(at time: Instant) {
        guard !queue.isEmpty, !statusBar.holdsOverlay else { return }
        current = queue.removeFirst()
        startShow(at: time)
    }

    private mutating func startRotatingOut(from alpha: Double, to target: Orientation, at time: Instant) {
        let fadeOut = Transition(
            property: .alpha, from: alpha, to: 0, start: time,
            length: configuration.rotationLength.scaled(by: alpha))
        phase = .rotatingOut
        rotationTarget = target
        transition = fadeOut
        if fadeOut.length <= .zero { startRotatingIn(at: time) }
    }

    /// The new orientation, rotation and frame apply at once, then the overlay fades back in.
    mutating func startRotatingIn(at time: Instant) {
        if let rotationTarget { orientation = rotationTarget }
        rotationTarget = nil
        phase = .rotatingIn
        transition = Transition(property: .alpha, from: 0, to: 1, start: time, length: configuration.rotationLength)
        if configuration.rotationLength <= .zero { finishRotation(at: time) }
    }

    mutating func finishRotation(at time: Instant) {
        phase = .visible
        transition = nil
        if let current, current.state.hasEnded { replaceOrHide(at: time) }
    }

    // MARK: - Presentation

    /// contentOffset and alpha at `time`, from the phase and its transition.
    func motion(at time: Instant) -> (contentOffset: Double, alpha: Double) {
        switch phase {
        case .hidden:
            return configuration.showStyle.slides ? (-windowHeight, 0) : (0, 0)
        case .visible:
            return (0, 1)
        case .showing, .hiding, .rotatingOut, .rotatingIn:
            guard let transition else { return (0, 1) }
            let value = transition.value(at: time, curve: configuration.curve)
            return transition.property == .contentOffset ? (value, 1) : (0, value)
        }
    }
}
