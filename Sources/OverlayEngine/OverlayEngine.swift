/// Where the overlay is in its cycle.
public enum Phase: String, CaseIterable, Hashable, Sendable {
    case hidden
    case showing
    case visible
    case hiding
    case rotatingOut
    case rotatingIn

    var isRotating: Bool { self == .rotatingOut || self == .rotatingIn }
}

/// One property moving linearly (or along the configured curve) from `from` to `to`.
public struct Transition: Hashable, Sendable {
    public enum Property: String, Hashable, Sendable {
        case contentOffset
        case alpha
    }

    public var property: Property
    public var from: Double
    public var to: Double
    public var start: Instant
    public var length: Interval

    public var end: Instant { start + length }

    /// The property's value at `time`, clamped to the transition's ends.
    public func value(at time: Instant, curve: Curve) -> Double {
        guard length > .zero else { return to }
        let fraction = Double((time - start).nanoseconds) / Double(length.nanoseconds)
        if fraction >= 1 { return to }
        return from + (to - from) * curve.value(at: fraction)
    }
}

/// What a POST did: a new message, or an update of the live message with the same `key`.
public enum PostOutcome: Hashable, Sendable {
    case created(Message)
    case updated(Message)

    public var message: Message {
        switch self {
        case .created(let message), .updated(let message): message
        }
    }
}

/// The overlay's state machine (spec §§2–4).
///
/// A value type with no clock, timer or I/O: every event takes the time it happens at, first
/// reaches every deadline up to then (in order, each at its own instant), then applies itself.
/// The engine never owns a timer: the driver reads `nextDeadline` after each event and calls
/// `advance(to:)` when it is reached. Geometry and alpha are computed from state and time by
/// `overlay(at:)`, never stepped.
///
/// `version` grows by one for each event that changes something and for each deadline reached.
public struct OverlayEngine: Sendable {
    public let configuration: EngineConfiguration
    public private(set) var version: UInt64
    /// The time of the latest event or deadline; events never move it back.
    public private(set) var now: Instant
    public private(set) var device: DeviceProfile
    /// The orientation whose frame the window has now.
    public private(set) var orientation: Orientation
    /// Where a rotation in `rotatingOut` is heading.
    public private(set) var rotationTarget: Orientation?
    public private(set) var phase: Phase = .hidden
    /// The animation of the current phase (`showing`, `hiding`, `rotatingOut`, `rotatingIn`).
    public private(set) var transition: Transition?
    /// The message on the overlay. It may have ended and still be drawn: while the overlay hides,
    /// and, during a rotation, until `rotatingIn` ends.
    public private(set) var current: Message? {
        // Every assignment is journaled without comparing the messages (which would compare
        // their strings): a record written once too often costs less than the comparison.
        didSet {
            if let id = oldValue?.id, id != current?.id { journal.append(id) }
            if let id = current?.id { journal.append(id) }
        }
    }
    /// Waiting messages, first to show first.
    public private(set) var queue = Ring<Message>()
    /// Ended messages, oldest first, at most `historySize`.
    public private(set) var history = Ring<Message>()
    public private(set) var nextID: Int64
    /// Ids of the messages whose record changed (created, changed, ended, or dropped from the
    /// history) since `takeChangedMessages()` was last called: what a store must write.
    public var changedMessages: Set<Int64> { Set(journal) }
    /// The journal behind `changedMessages`: ids appended as records change, repeats and all (an
    /// append is cheaper than a set insert, and most accesses have no store to hand it to).
    private var journal: [Int64] = []
    /// The `queueOrder` of the queue's ends: appending takes `tailOrder + 1`, a message going to
    /// the head takes `headOrder - 1`, so the queue's order survives being stored row by row.
    private var headOrder: Int64 = 0
    private var tailOrder: Int64 = 0

    public init(configuration: EngineConfiguration, now: Instant = .zero, version: UInt64 = 0, nextID: Int64 = 1) {
        self.configuration = configuration
        self.version = version
        self.now = now
        self.device = configuration.device
        self.orientation = configuration.orientation
        self.nextID = nextID
    }

    /// An engine restored from a store after a restart: the message that was shown goes back to
    /// the head of the queue and shows again from the start of its animation; the queued ones keep
    /// their order; ids and versions go on from where they were.
    public init(configuration: EngineConfiguration, restoring restored: RestoredState, now: Instant = .zero) {
        self.init(configuration: configuration, now: now, version: restored.version, nextID: restored.nextID)
        if let device = restored.device { self.device = device }
        orientation = restored.orientation
        history = Ring(restored.history.suffix(configuration.historySize))
        // Ended messages beyond `historySize` (a smaller one configured since) are forgotten, and
        // journaled as such so that a store deletes their rows instead of loading them forever.
        let dropped = restored.history.dropLast(history.count).map(\.id)
        let live = restored.live.sorted {
            ($0.state == .showing ? 0 : 1, $0.queueOrder) < ($1.state == .showing ? 0 : 1, $1.queueOrder)
        }
        for var message in live {
            message.state = .queued
            message.shownAt = nil
            message.displayStartedAt = nil
            message.deadline = nil
            message.expiresAtDeadline = false
            tailOrder += 1
            message.queueOrder = tailOrder
            queue.append(message)
        }
        if !queue.isEmpty {
            showNextIfAny(at: now)
            version += 1
        }
        journal = live.map(\.id) + dropped
    }

    /// Forgets the changed ids, for an engine whose state is not stored.
    public mutating func forgetChangedMessages() {
        journal.removeAll(keepingCapacity: true)
    }

    /// The ids whose records changed since the last call, and forgets them.
    public mutating func takeChangedMessages() -> Set<Int64> {
        defer { journal.removeAll(keepingCapacity: true) }
        return changedMessages
    }

    // MARK: - Reading

    /// The earliest time at which something happens without an event: the end of the running
    /// animation or of the shown message's display time.
    public var nextDeadline: Instant? { pendingDeadline?.time }

    /// The shown message (if it has not ended) and the queued ones, in the order they show.
    public var liveMessages: [Message] {
        guard let current, !current.state.hasEnded else { return Array(queue) }
        return [current] + queue
    }

    /// A message by id: shown, queued, or ended within the history.
    public func message(id: Int64) -> Message? {
        if let current, current.id == id { return current }
        if let queued = queue.first(where: { $0.id == id }) { return queued }
        return history.last(where: { $0.id == id })
    }

    // MARK: - Events

    /// Reaches every deadline up to `time`, each at its own instant, one version each.
    public mutating func advance(to time: Instant) {
        let target = max(time, now)
        while let deadline = pendingDeadline, deadline.time <= target {
            now = deadline.time
            switch deadline.kind {
            case .messageEnds: messageTimeEnded(at: deadline.time)
            case .transitionEnds: transitionEnded(at: deadline.time)
            }
            version += 1
        }
        now = target
    }

    /// A sender posts a message. With a `key` that a live message has, it updates that message as a
    /// PATCH would (`.updated`); otherwise a new message is queued or shown (`.created`).
    public mutating func post(_ input: MessageInput, at time: Instant) -> Result<PostOutcome, EngineError> {
        advance(to: time)
        if let key = input.key {
            if let error = MessageRules.check(key: key) { return .failure(error) }
            if let id = liveMessage(withKey: key)?.id {
                var change = input
                change.key = nil
                change.immediate = nil
                return update(id: id, with: change, at: time).map(PostOutcome.updated)
            }
        }
        let valid: MessageInput
        switch MessageRules.validated(input, isNew: true) {
        case .success(let checked): valid = checked
        case .failure(let error): return .failure(error)
        }
        let message = Message(id: nextID, input: valid, postedAt: now)
        let immediate = message.immediate
        // An immediate message takes no place in the queue, unless the sticky message it replaces
        // goes back there: the bound holds for every way a message can wait.
        let takesQueueSlot =
            switch phase {
            case .hidden: false
            case .hiding: true
            case .showing, .visible, .rotatingOut, .rotatingIn:
                !immediate || current.map { !$0.state.hasEnded && lifetime(of: $0) == .sticky } ?? false
            }
        if takesQueueSlot && queue.count >= configuration.maxQueue {
            return .failure(.queueFull(limit: configuration.maxQueue, retryAfter: retryAfter))
        }
        nextID += 1
        switch phase {
        case .hidden:
            current = message
            startShow(at: now)
        case .hiding:
            if immediate { enqueueAtHead(message) } else { enqueue(message) }
        case .showing, .visible, .rotatingOut, .rotatingIn:
            if immediate { preemptCurrent(with: message) } else { enqueue(message) }
        }
        version += 1
        settle()
        return .success(.created(self.message(id: message.id) ?? message))
    }

    /// A sender changes a queued or shown message (PATCH).
    public mutating func update(id: Int64, with input: MessageInput, at time: Instant) -> Result<Message, EngineError> {
        advance(to: time)
        let valid: MessageInput
        switch MessageRules.validated(input, isNew: false) {
        case .success(let checked): valid = checked
        case .failure(let error): return .failure(error)
        }
        let isCurrent: Bool
        let old: Message
        if let current, current.id == id, !current.state.hasEnded {
            isCurrent = true
            old = current
        } else if let queued = queue.first(where: { $0.id == id }) {
            isCurrent = false
            old = queued
        } else {
            return .failure(endedOrMissing(id: id))
        }

        var changed = old
        if let kind = valid.kind { changed.kind = kind }
        if let text = valid.text { changed.text = text }
        if let progress = valid.progress { changed.progress = progress }
        if let duration = valid.duration { changed.duration = duration }
        if changed.kind == .progress && changed.progress == nil {
            if valid.progress == .some(nil) {
                return .failure(.invalidField(field: "progress", reason: "a progress message needs a progress"))
            }
            changed.progress = 0
        }
        if isCurrent, let displayStart = changed.displayStartedAt {
            restartTimerIfNeeded(&changed, from: old, input: valid, displayStart: displayStart)
        }
        guard changed != old else { return .success(old) }
        if isCurrent {
            current = changed
        } else if let index = queue.firstIndex(where: { $0.id == id }) {
            queue[index] = changed
            journal.append(id)
        }
        version += 1
        settle()
        return .success(message(id: id) ?? changed)
    }

    /// A sender deletes a message: a queued one is cancelled; the shown one ends now and the next
    /// replaces it at once or the overlay hides (during a rotation, when `rotatingIn` ends).
    public mutating func delete(id: Int64, at time: Instant) -> Result<Message, EngineError> {
        advance(to: time)
        var cancelled: Message
        if let current, current.id == id, !current.state.hasEnded {
            endCurrent(as: .cancelled, at: now)
            cancelled = self.current ?? current
            if !phase.isRotating { replaceOrHide(at: now) }
        } else if let index = queue.firstIndex(where: { $0.id == id }) {
            cancelled = queue.remove(at: index)
            cancelled.state = .cancelled
            cancelled.endedAt = now
            remember(cancelled)
        } else {
            return .failure(endedOrMissing(id: id))
        }
        version += 1
        settle()
        return .success(cancelled)
    }

    /// The interface orientation changes. Returns whether anything changed.
    @discardableResult
    public mutating func changeOrientation(to target: Orientation, at time: Instant) -> Bool {
        advance(to: time)
        switch phase {
        case .rotatingOut:
            guard target != rotationTarget else { return false }
            rotationTarget = target
        case .rotatingIn:
            guard target != orientation else { return false }
            startRotatingOut(from: presentation(at: now).alpha, to: target, at: now)
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
            phase = .hidden
            transition = nil
            current = nil
            orientation = target
            showNextIfAny(at: now)
        case .visible:
            guard target != orientation else { return false }
            startRotatingOut(from: 1, to: target, at: now)
        }
        version += 1
        settle()
        return true
    }

    /// The screen changes to another device profile; the frame changes at once, with no animation.
    /// Returns whether anything changed.
    @discardableResult
    public mutating func changeDevice(to profile: DeviceProfile, at time: Instant) -> Bool {
        advance(to: time)
        guard profile != device else { return false }
        let oldHeight = device.statusBarHeight
        device = profile
        // A slide is measured in status-bar heights: it keeps its fraction, in the new height.
        if var slide = transition, slide.property == .contentOffset, oldHeight > 0 {
            slide.from = slide.from / oldHeight * profile.statusBarHeight
            slide.to = slide.to / oldHeight * profile.statusBarHeight
            transition = slide
        }
        version += 1
        return true
    }

    // MARK: - Deadlines

    private enum DeadlineKind {
        case messageEnds
        case transitionEnds
    }

    /// The shown message's end wins a tie with an animation's end: during a rotation both can
    /// fall on one instant, and the message must end before `rotatingIn` ends and replaces it.
    private var pendingDeadline: (time: Instant, kind: DeadlineKind)? {
        let messageEnd = current.flatMap { $0.state.hasEnded ? nil : $0.deadline }
        let transitionEnd = transition?.end
        switch (messageEnd, transitionEnd) {
        case (let message?, let animation?):
            return message <= animation ? (message, .messageEnds) : (animation, .transitionEnds)
        case (let message?, nil): return (message, .messageEnds)
        case (nil, let animation?): return (animation, .transitionEnds)
        case (nil, nil): return nil
        }
    }

    private mutating func messageTimeEnded(at time: Instant) {
        guard let ending = current else { return }
        endCurrent(as: ending.expiresAtDeadline ? .expired : .done, at: time)
        // A message whose time ends during a rotation is replaced or hidden when rotatingIn ends.
        if !phase.isRotating { replaceOrHide(at: time) }
    }

    private mutating func transitionEnded(at time: Instant) {
        switch phase {
        case .showing:
            phase = .visible
            transition = nil
            beginDisplay(at: time)
        case .hiding:
            finishHide(at: time)
        case .rotatingOut:
            startRotatingIn(at: time)
        case .rotatingIn:
            finishRotation(at: time)
        case .hidden, .visible:
            transition = nil
        }
    }

    /// Deadlines at or before `now` that an event itself created are reached at once.
    private mutating func settle() {
        advance(to: now)
    }

    // MARK: - Transitions

    private mutating func startShow(at time: Instant) {
        current?.state = .showing
        current?.shownAt = time
        let length = configuration.showLength
        guard length > .zero else {
            phase = .visible
            transition = nil
            beginDisplay(at: time)
            return
        }
        phase = .showing
        transition =
            configuration.showStyle == .slide
            ? Transition(property: .contentOffset, from: -device.statusBarHeight, to: 0, start: time, length: length)
            : Transition(property: .alpha, from: 0, to: 1, start: time, length: length)
    }

    /// Hides from wherever the overlay is now: a hide that interrupts a show moves at the hide's
    /// speed over the distance that remains, as a rotation's fade-out does (spec §4).
    private mutating func startHide(at time: Instant) {
        let height = device.statusBarHeight
        let state = presentation(at: time)
        let next: Transition
        switch configuration.showStyle {
        case .slide:
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

    private mutating func finishHide(at time: Instant) {
        phase = .hidden
        transition = nil
        current = nil
        showNextIfAny(at: time)
    }

    private mutating func showNextIfAny(at time: Instant) {
        guard !queue.isEmpty else { return }
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
    private mutating func startRotatingIn(at time: Instant) {
        if let rotationTarget { orientation = rotationTarget }
        rotationTarget = nil
        phase = .rotatingIn
        transition = Transition(property: .alpha, from: 0, to: 1, start: time, length: configuration.rotationLength)
        if configuration.rotationLength <= .zero { finishRotation(at: time) }
    }

    private mutating func finishRotation(at time: Instant) {
        phase = .visible
        transition = nil
        if let current, current.state.hasEnded { replaceOrHide(at: time) }
    }

    // MARK: - Messages

    /// The shown message has ended: the next one replaces it at once (the overlay stays, no
    /// animation), or the overlay hides.
    private mutating func replaceOrHide(at time: Instant) {
        guard !queue.isEmpty else {
            startHide(at: time)
            return
        }
        var next = queue.removeFirst()
        next.state = .showing
        next.shownAt = time
        current = next
        // While the show animation still runs, display time starts at its end.
        if phase != .showing { beginDisplay(at: time) }
    }

    /// An immediate message takes the shown one's place. A sticky one goes back to the head of the
    /// queue and starts its time again when shown again; any other ends as `preempted`.
    // Messages are moved out of `current` and back rather than copied where the code allows: a
    // copy of a message retains its strings, and the copy written back releases them again.
    private mutating func preemptCurrent(with message: consuming Message) {
        if var replaced = current.take(), !replaced.state.hasEnded {
            // Sticky is what its timer says once displayed: a sending message whose progress reached
            // 1 is ending, and ends as preempted rather than coming back.
            let isSticky =
                replaced.displayStartedAt != nil ? replaced.expiresAtDeadline : lifetime(of: replaced) == .sticky
            if isSticky {
                replaced.state = .queued
                replaced.shownAt = nil
                replaced.displayStartedAt = nil
                replaced.deadline = nil
                replaced.expiresAtDeadline = false
                enqueueAtHead(replaced)
            } else {
                end(&replaced, as: .preempted, at: now)
            }
        }
        message.state = .showing
        message.shownAt = now
        current = message
        if phase != .showing { beginDisplay(at: now) }
    }

    private enum Lifetime: Equatable {
        case sticky
        case finite(Interval)
    }

    private func lifetime(of message: Message) -> Lifetime {
        if let duration = message.duration { return .finite(duration) }
        if message.kind == .progress && configuration.durations[.progress] == nil {
            return (message.progress ?? 0) >= 1 ? .finite(configuration.completeDuration) : .sticky
        }
        if let duration = configuration.durations[message.kind] { return .finite(duration) }
        return .sticky
    }

    /// The message is fully shown: its display time starts.
    private mutating func beginDisplay(at time: Instant) {
        guard var message = current.take() else { return }
        if !message.state.hasEnded {
            message.displayStartedAt = time
            switch lifetime(of: message) {
            case .finite(let length):
                message.deadline = time + length
                message.expiresAtDeadline = false
            case .sticky:
                message.deadline = time + configuration.maxStickyDuration
                message.expiresAtDeadline = true
            }
        }
        current = message
    }

    /// Spec §3: setting `duration`, or making a sticky message finite (or changing its kind),
    /// restarts the timer now; progress reaching 1 ends it `completeDuration` from now; text or
    /// progress alone leave it. A finite message made sticky expires `maxStickySeconds` after its
    /// display started.
    private func restartTimerIfNeeded(
        _ message: inout Message, from old: Message, input: MessageInput, displayStart: Instant
    ) {
        let before = lifetime(of: old)
        let after = lifetime(of: message)
        let reachedCompletion = (old.progress ?? 0) < 1 && message.progress == 1
        if let duration = input.duration {
            message.deadline = now + duration
            message.expiresAtDeadline = false
        } else if reachedCompletion {
            message.deadline = now + configuration.completeDuration
            message.expiresAtDeadline = false
        } else if case .finite(let length) = after, before == .sticky || old.kind != message.kind {
            message.deadline = now + length
            message.expiresAtDeadline = false
        } else if after == .sticky, before != .sticky {
            message.deadline = max(now, displayStart + configuration.maxStickyDuration)
            message.expiresAtDeadline = true
        }
    }

    private mutating func endCurrent(as state: MessageState, at time: Instant) {
        guard var ended = current.take() else { return }
        end(&ended, as: state, at: time)
        current = ended
    }

    private mutating func end(_ message: inout Message, as state: MessageState, at time: Instant) {
        message.state = state
        message.endedAt = time
        remember(message)
    }

    private mutating func remember(_ ended: Message) {
        history.append(ended)
        journal.append(ended.id)
        if history.count > configuration.historySize {
            while history.count > configuration.historySize {
                journal.append(history.removeFirst().id)
            }
        }
    }

    private mutating func enqueue(_ message: consuming Message) {
        tailOrder += 1
        message.queueOrder = tailOrder
        journal.append(message.id)
        queue.append(message)
    }

    private mutating func enqueueAtHead(_ message: consuming Message) {
        headOrder -= 1
        message.queueOrder = headOrder
        journal.append(message.id)
        queue.prepend(message)
    }

    private func liveMessage(withKey key: String) -> Message? {
        liveMessages.first { $0.key == key }
    }

    private func endedOrMissing(id: Int64) -> EngineError {
        if let ended = message(id: id), ended.state.hasEnded {
            return .messageEnded(id: id, state: ended.state)
        }
        return .messageNotFound(id: id)
    }

    /// About how long until the queue moves: until the shown message's time ends, at least a second.
    /// During its show animation its time has no deadline yet: it ends its lifetime after the show.
    /// A sticky message's end is unknown (it waits for its sender), so a client is told to look
    /// again in a few seconds rather than at its expiry minutes away.
    private var retryAfter: Interval {
        let second = Interval.seconds(1)
        let stickyRetry = Interval.seconds(5)
        guard let current, !current.state.hasEnded else { return second }
        let end: Instant
        if let deadline = current.deadline {
            guard !current.expiresAtDeadline else { return stickyRetry }
            end = deadline
        } else if phase == .showing, let show = transition {
            switch lifetime(of: current) {
            case .finite(let length): end = show.end + length
            case .sticky: return stickyRetry
            }
        } else {
            return second
        }
        return end > now ? max(second, end - now) : second
    }

    // MARK: - Presentation

    /// contentOffset and alpha at `time`, from the phase and its transition.
    func presentation(at time: Instant) -> (contentOffset: Double, alpha: Double) {
        switch phase {
        case .hidden:
            return configuration.showStyle == .slide ? (-device.statusBarHeight, 0) : (0, 0)
        case .visible:
            return (0, 1)
        case .showing, .hiding, .rotatingOut, .rotatingIn:
            guard let transition else { return (0, 1) }
            let value = transition.value(at: time, curve: configuration.curve)
            return transition.property == .contentOffset ? (value, 1) : (0, value)
        }
    }
}
