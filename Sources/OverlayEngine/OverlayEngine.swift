/// The overlay's state machine: messages, timers, phases and geometry (docs/BEHAVIOUR.md).
///
/// A value type with no clock, timer or I/O: every event takes the time it happens at, first
/// reaches every deadline up to then (in order, each at its own instant), then applies itself,
/// and returns its answer with what it changed (`Applied`). The engine never owns a timer: the
/// driver reads `nextDeadline` after each event and calls `advance(to:)` when it is reached.
/// Geometry and alpha are computed from state and time by `overlay(at:)`, never stepped.
///
/// `version` grows by one for each event that changes something and for each deadline reached.
///
/// The events are in `OverlayEngine+Messages.swift` (post, PATCH, DELETE),
/// `OverlayEngine+Transitions.swift` (orientation, device, and the phases they drive) and
/// `OverlayEngine+StatusBar.swift` (the app's status bar under the overlay, and its hold on it).
public struct OverlayEngine: Hashable, Sendable {
    public let configuration: EngineConfiguration
    public internal(set) var version: UInt64
    /// The time of the latest event or deadline; events never move it back.
    public internal(set) var now: Instant
    public internal(set) var device: DeviceProfile
    /// The presentation asked for, `auto` included; `presentationInEffect` is the one drawn.
    public internal(set) var presentation: Presentation
    /// The orientation whose frame the window has now.
    public internal(set) var orientation: Orientation
    /// Where a rotation in `rotatingOut` is heading.
    public internal(set) var rotationTarget: Orientation?
    public internal(set) var phase: Phase = .hidden
    /// The animation of the current phase (`showing`, `hiding`, `rotatingOut`, `rotatingIn`), or
    /// the rise of a new label while `visible`.
    public internal(set) var transition: Transition?
    /// The outgoing label of the rise that runs; nil when none does.
    public internal(set) var rise: Rise?
    /// The message on the overlay. It may have ended and still be drawn: while the overlay hides,
    /// and, during a rotation, until `rotatingIn` ends.
    public internal(set) var current: Message? {
        // Every assignment is recorded without comparing the messages (which would compare
        // their strings): a record written once too often costs less than the comparison. The
        // old id is read before the assignment rather than through `oldValue`, which would copy
        // the old message.
        willSet {
            if let id = current?.id, id != newValue?.id { recorded.record(id) }
        }
        didSet {
            if let id = current?.id { recorded.record(id) }
            let live = current?.state.hasEnded == false
            currentLiveDeadline = live ? current?.deadline : nil
            currentLiveDisplayStart = live ? current?.displayStartedAt : nil
        }
    }
    /// The shown message's `deadline` and `displayStartedAt` while it has not ended, kept as
    /// `current` changes: every read asks for the next deadline, and reading them through the
    /// optional copied the whole message (about 60 instructions a read, against a write's few).
    private(set) var currentLiveDeadline: Instant?
    private(set) var currentLiveDisplayStart: Instant?
    /// Waiting messages, first to show first.
    public internal(set) var queue = MessageQueue()
    /// Messages waiting for their time, not yet queued.
    var scheduled = ScheduledMessages()
    /// When the waiting messages with an `expires` lapse.
    var expiries = ExpiryIndex()
    /// Ended messages, oldest first, at most `historySize`.
    public internal(set) var history = MessageHistory()
    /// The id of the live (queued or shown) message with each key: a keyed POST finds the message
    /// it updates without a search.
    var liveKeys: [String: Int64] = [:]
    /// The app's own status bar under the overlay; while it is hidden it holds the overlay.
    public internal(set) var statusBar: StatusBar
    /// The message the overlay still draws while it hides beside the status bar: back in the queue
    /// already (or ended), so not `current`, which would make it shown and queued at once.
    var leaving: Message?
    public internal(set) var nextID: Int64
    /// When the finger that holds the overlay went down; nil when nothing holds it. While held,
    /// the shown message does not end by its time.
    public internal(set) var heldSince: Instant?
    /// What the running event has changed so far; empty between events, which hand it to their
    /// caller.
    var recorded = Changes()
    /// The `queueOrder` of the queue's ends: appending takes `tailOrder + 1`, a message going to
    /// the head takes `headOrder - 1`, so the queue's order survives being stored row by row.
    var headOrder: Int64 = 0
    var tailOrder: Int64 = 0
    /// The version at which `OverlaySnapshot.announcement` last changed (MODEL §14), so that a
    /// reader speaks once per change; `announced` is what it was made of then.
    public internal(set) var announcementVersion: UInt64
    var announced: Announced?
    /// The version `announced` was last compared at.
    var announcementNotedAt: UInt64

    public init(configuration: EngineConfiguration, now: Instant = .zero, version: UInt64 = 0, nextID: Int64 = 1) {
        self.configuration = configuration
        self.version = version
        self.now = now
        self.device = configuration.device
        self.presentation = configuration.presentation
        self.orientation = configuration.orientation
        self.nextID = nextID
        self.announcementVersion = version
        self.announcementNotedAt = version
        self.statusBar = StatusBar(configuration: configuration.statusBar, curve: configuration.curve, now: now)
    }

    // MARK: - Reading

    /// The presentation drawn: never `auto`.
    public var presentationInEffect: Presentation { presentation.resolved(on: device) }

    /// The window's height Hw: h for `statusBar`, more for `fullWidth` and `pill`; the content
    /// slides from −Hw (hidden above the top edge) to 0.
    public var windowHeight: Double {
        PresentationLayout.windowHeight(
            presentation, device: device, orientation: orientation, pillHeight: configuration.pillHeight)
    }

    /// The widths of a message's texts with the configured metrics. Asked for when a snapshot is
    /// taken (once per version a reader reads, never per read): a write nobody reads measures
    /// nothing, and the metrics keep what they measured, so a text is shaped once.
    func measure(_ message: Message) -> MeasuredText {
        MeasuredText(
            title: configuration.text.width(of: message.text, as: .title),
            subtitle: message.subtitle.map { configuration.text.width(of: $0, as: .subtitle) })
    }

    /// The earliest time at which something happens without an event: the end of the running
    /// animation, of the shown message's display time, or of the status bar's hide or show.
    public var nextDeadline: Instant? { pendingDeadline?.time }

    /// The shown message (if it has not ended) and the queued ones, in the order they show. A
    /// copy of the whole queue: for a reader that asks for all of it; `liveMessages(after:limit:)`
    /// reads a page.
    public var liveMessages: [Message] {
        guard let current, !current.state.hasEnded else { return Array(queue) }
        return [current] + queue
    }

    /// A page of `liveMessages`: up to `limit` (at least one) after the message with id `cursor`,
    /// from the first when nil. Costs the page, not the queue. Nil when `cursor` is not a live
    /// message any more (it ended, or never was): the reader starts again from the first.
    public func liveMessages(after cursor: Int64?, limit: Int) -> MessagePage? {
        let limit = max(1, limit)
        let shown = current.flatMap { $0.state.hasEnded ? nil : $0 }
        var messages: [Message] = []
        var after = cursor
        if cursor == nil, let shown {
            messages.append(shown)
        } else if let cursor, cursor == shown?.id {
            after = nil
        }
        if messages.count == limit {
            return MessagePage(messages: messages, next: queue.isEmpty ? nil : messages.last?.id)
        }
        guard let queued = queue.messages(after: after, limit: limit - messages.count) else { return nil }
        messages += queued.messages
        return MessagePage(messages: messages, next: queued.more ? messages.last?.id : nil)
    }

    /// How many messages the engine holds and the bytes their strings take: queued, scheduled,
    /// ended within the history, and the shown one. Constant time, for a bound on memory.
    public var held: (messages: Int, textBytes: Int) {
        let shown = current.flatMap { $0.state.hasEnded ? nil : $0.textBytes }
        return (
            queue.count + scheduled.count + history.count + (shown == nil ? 0 : 1),
            queue.textBytes + scheduled.textBytes + history.textBytes + (shown ?? 0)
        )
    }

    /// A message by id: shown, queued, or ended within the history. Constant time.
    public func message(id: Int64) -> Message? {
        if let current, current.id == id { return current }
        return queue[id: id] ?? history[id: id] ?? scheduled[id: id]
    }

    // MARK: - Reaching deadlines

    /// Reaches every deadline up to `time`, each at its own instant, one version each.
    @discardableResult
    public mutating func advance(to time: Instant) -> Changes {
        applying { $0.reach(time) }.changes
    }

    /// Runs one event and returns its answer with everything it changed.
    @inline(__always)
    mutating func applying<Value>(_ event: (inout OverlayEngine) -> Value) -> Applied<Value> {
        let versionBefore = version
        let value = event(&self)
        noteAnnouncement()
        expiries.prune(queue)
        var changes = Changes()
        swap(&changes, &recorded)
        if version != versionBefore { changes.recordVersionMoved() }
        return Applied(value, changes: changes)
    }

    mutating func reach(_ time: Instant) {
        let target = max(time, now)
        expiries.prune(queue)
        // What the event so far changed is its own version's, not the next deadline's.
        noteAnnouncement()
        while let deadline = pendingDeadline, deadline.time <= target {
            // A deadline an event set in the past (an `expires` already over) is reached now:
            // time never goes back.
            let time = max(deadline.time, now)
            now = time
            switch deadline.kind {
            case .waitingExpires: waitingMessageExpired(at: time)
            case .messageEnds: messageTimeEnded(at: time)
            case .transitionEnds: transitionEnded(at: time)
            case .statusBarEnds: statusBar.advance(to: time)
            case .holdEnds: endHold(at: time)
            case .scheduledTimeComes: scheduledTimeCame(at: time)
            case .minimumVisibleEnds: minimumVisibleEnded(at: time)
            }
            version += 1
            noteAnnouncement()
            expiries.prune(queue)
        }
        now = target
        // The bar's time moves with the engine's, so that the state a store keeps (one `now`)
        // rebuilds it exactly; its own deadlines were reached in the loop.
        statusBar.now = target
    }

    /// Deadlines at or before `now` that an event itself created are reached at once.
    mutating func settle() {
        reach(now)
    }

    private enum DeadlineKind {
        case waitingExpires
        case messageEnds
        case transitionEnds
        case statusBarEnds
        case holdEnds
        case scheduledTimeComes
        case minimumVisibleEnds
    }

    /// A waiting message's expiry wins every tie: at that instant it is no longer there to show.
    /// The shown message's end wins a tie with an animation's end: during a rotation both can
    /// fall on one instant, and the message must end before `rotatingIn` ends and replaces it.
    /// The status bar's end comes after those: reaching it changes nothing else (the hold
    /// follows the bar's target, set when its hide or show starts). A scheduled message joins
    /// last, as a message posted at that instant would, after everything else due then.
    private var pendingDeadline: (time: Instant, kind: DeadlineKind)? {
        var next: (time: Instant, kind: DeadlineKind)?
        if let end = expiries.earliest?.time { next = (end, .waitingExpires) }
        if heldSince == nil, let end = currentLiveDeadline, next.map({ end < $0.time }) ?? true {
            next = (end, .messageEnds)
        }
        if let end = transition?.end, next.map({ end < $0.time }) ?? true { next = (end, .transitionEnds) }
        // After the shown message's end: a message whose time ends then is replaced by the waiting
        // one as any next message would be.
        if let end = minimumVisibleDeadline, next.map({ end < $0.time }) ?? true {
            next = (end, .minimumVisibleEnds)
        }
        if let end = statusBar.nextDeadline, next.map({ end < $0.time }) ?? true { next = (end, .statusBarEnds) }
        if let end = holdDeadline, next.map({ end < $0.time }) ?? true { next = (end, .holdEnds) }
        if let due = scheduled.firstDue, next.map({ due < $0.time }) ?? true {
            next = (due, .scheduledTimeComes)
        }
        return next
    }

    mutating func messageTimeEnded(at time: Instant) {
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
        case .visible:
            completeRise(at: time)
        case .hidden:
            transition = nil
        }
    }
}
