// The message events (POST, PATCH, DELETE) and the rules of a message's life: queueing,
// replacing, timers, ending, the history.
extension OverlayEngine {
    // MARK: - Events

    /// A sender posts a message. With a `key` that a live message has, it updates that message as a
    /// PATCH would (`.updated`); otherwise a new message is queued or shown (`.created`).
    public mutating func post(_ input: MessageInput, at time: Instant) -> Applied<Result<PostOutcome, EngineError>> {
        applying { $0.applyPost(input, at: time) }
    }

    /// A sender changes a queued or shown message (PATCH).
    public mutating func update(
        id: Int64, with input: MessageInput, at time: Instant
    ) -> Applied<Result<Message, EngineError>> {
        applying { $0.applyUpdate(id: id, with: input, at: time) }
    }

    /// A sender deletes a message: a queued one is cancelled; the shown one ends now and the next
    /// replaces it at once or the overlay hides (during a rotation, when `rotatingIn` ends).
    public mutating func delete(id: Int64, at time: Instant) -> Applied<Result<Message, EngineError>> {
        applying { $0.applyDelete(id: id, at: time) }
    }

    mutating func applyPost(_ input: MessageInput, at time: Instant) -> Result<PostOutcome, EngineError> {
        reach(time)
        if let key = input.key {
            if let error = MessageRules.check(key: key) { return .failure(error) }
            if let id = liveMessageID(withKey: key) {
                var change = input
                change.key = nil
                change.immediate = nil
                // The time is reached already.
                return applyUpdate(id: id, with: change).map(PostOutcome.updated)
            }
        }
        let valid: MessageInput
        switch MessageRules.validated(input, isNew: true) {
        case .success(let checked): valid = checked
        case .failure(let error): return .failure(error)
        }
        var message = Message(id: nextID, input: valid, postedAt: now)
        message.priority = priority(of: message)
        switch dueTime(of: valid) {
        case .failure(let error): return .failure(error)
        case .success(let due?): return schedule(message, due: due)
        case .success(nil): break
        }
        let immediate = message.immediate
        // An immediate message takes no place in the queue, unless the sticky message it replaces
        // goes back there: the bound holds for every way a message can wait.
        let held = statusBar.holdsOverlay
        let takesQueueSlot =
            switch phase {
            case .hidden: held
            case .hiding: true
            case .showing, .visible, .rotatingOut, .rotatingIn:
                !immediate || immediateWaits
                    || current.map { !$0.state.hasEnded && lifetime(of: $0) == .sticky } ?? false
            }
        if takesQueueSlot && queue.count >= configuration.maxQueue {
            return .failure(.queueFull(limit: configuration.maxQueue, retryAfter: retryAfter))
        }
        nextID += 1
        if let key = message.key { liveKeys[key] = message.id }
        place(message)
        version += 1
        settle()
        return .success(.created(self.message(id: message.id) ?? message))
    }

    /// A message joins now, posted or due: it shows, waits, or (immediate) takes the shown one's
    /// place. Its `expires` starts counting if it waits.
    mutating func place(_ joining: Message) {
        var message = joining
        let immediate = message.immediate
        let held = statusBar.holdsOverlay
        message.state = .queued
        if let expires = message.expires { message.expiresAt = now + expires }
        switch phase {
        case .hidden where held:
            // Held by a hidden status bar: it waits as it would behind a hide.
            if immediate { enqueueAtHead(message) } else { enqueue(message) }
        case .hidden:
            current = message
            startShow(at: now)
        case .hiding:
            if immediate { enqueueAtHead(message) } else { enqueue(message) }
        case .showing, .visible, .rotatingOut, .rotatingIn:
            if immediate && !immediateWaits {
                preemptCurrent(with: message)
            } else if immediate {
                enqueueAtHead(message)
            } else {
                enqueue(message)
            }
        }
    }

    private mutating func applyUpdate(
        id: Int64, with input: MessageInput, at time: Instant
    ) -> Result<Message, EngineError> {
        reach(time)
        return applyUpdate(id: id, with: input)
    }

    /// The update at `now`.
    private mutating func applyUpdate(id: Int64, with input: MessageInput) -> Result<Message, EngineError> {
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
        } else if let queued = queue[id: id] {
            isCurrent = false
            old = queued
        } else if let waiting = scheduled[id: id] {
            isCurrent = false
            old = waiting
        } else {
            return .failure(endedOrMissing(id: id))
        }
        // A new time is for a message still waiting for its time.
        if valid.isScheduling, old.state != .scheduled {
            return .failure(.notScheduled(id: id, state: old.state, field: valid.delay != nil ? "delay" : "at"))
        }

        var changed = old
        if let kind = valid.kind { changed.kind = kind }
        if let text = valid.text { changed.text = text }
        if let subtitle = valid.subtitle { changed.subtitle = subtitle }
        if let icon = valid.icon { changed.icon = icon }
        if let click = valid.click { changed.click = click }
        if let actions = valid.actions { changed.actions = actions }
        if let label = valid.accessibilityLabel { changed.accessibilityLabel = label }
        if let progress = valid.progress { changed.progress = progress }
        if let duration = valid.duration { changed.duration = duration }
        if let expires = valid.expires { changed.expires = expires }
        if let priority = valid.priority { changed.requestedPriority = priority }
        if changed.kind == .progress && changed.progress == nil {
            if valid.progress == .some(nil) {
                return .failure(.invalidField(field: "progress", reason: "a progress message needs a progress"))
            }
            changed.progress = 0
        }
        if isCurrent, let displayStart = changed.displayStartedAt {
            restartTimerIfNeeded(&changed, from: old, input: valid, displayStart: displayStart)
        }
        if old.state == .scheduled {
            guard changed != old || valid.isScheduling else { return .success(old) }
            let rescheduled = reschedule(id: id, to: changed, input: valid)
            guard case .success = rescheduled else { return rescheduled }
            version += 1
            settle()
            return .success(message(id: id) ?? changed)
        }
        guard changed != old else { return .success(old) }
        if isCurrent {
            if valid.kind != nil || valid.priority != nil { changed.priority = priority(of: changed) }
            let textRises = changed.text != old.text && changeRises
            current = changed
            if textRises {
                completeRise(at: now)
                startRise(from: old, at: now)
            }
        } else {
            updateWaiting(id: id, to: changed, from: old)
        }
        version += 1
        settle()
        return .success(message(id: id) ?? changed)
    }

    private mutating func applyDelete(id: Int64, at time: Instant) -> Result<Message, EngineError> {
        reach(time)
        var cancelled: Message
        if let current, current.id == id, !current.state.hasEnded {
            endCurrent(as: .cancelled, at: now)
            cancelled = self.current ?? current
            if !phase.isRotating { replaceOrHide(at: now) }
        } else if let queued = queue.remove(id: id) ?? scheduled.remove(id: id) {
            cancelled = queued
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

    // MARK: - Showing and replacing

    /// The shown message has ended: the next one replaces it at once (the overlay stays, no
    /// animation), or the overlay hides.
    mutating func replaceOrHide(at time: Instant) {
        guard !queue.isEmpty, !statusBar.holdsOverlay else {
            startHide(at: time)
            return
        }
        completeRise(at: time)
        let outgoing = changeRises ? current : nil
        var next = queue.removeFirst()
        next.markShown(at: time)
        current = next
        if let outgoing {
            // Fully shown, and its time started, at the rise's end.
            startRise(from: outgoing, at: time)
        } else if phase != .showing {
            // While the show animation still runs, display time starts at its end.
            beginDisplay(at: time)
        }
    }

    /// An immediate message takes the shown one's place. A sticky one goes back to the head of the
    /// queue and starts its time again when shown again; any other ends as `preempted`.
    // Messages are moved out of `current` and back rather than copied where the code allows: a
    // copy of a message retains its strings, and the copy written back releases them again.
    mutating func preemptCurrent(with message: consuming Message) {
        completeRise(at: now)
        let outgoing = changeRises ? current : nil
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
        message.markShown(at: now)
        current = message
        if let outgoing {
            startRise(from: outgoing, at: now)
        } else if phase != .showing {
            beginDisplay(at: now)
        }
    }

    // MARK: - Timers

    enum Lifetime: Equatable {
        case sticky
        case finite(Interval)
    }

    func lifetime(of message: Message) -> Lifetime {
        if let duration = message.duration { return .finite(duration) }
        if message.kind == .progress && configuration.durations[.progress] == nil {
            return (message.progress ?? 0) >= 1 ? .finite(configuration.completeDuration) : .sticky
        }
        if let duration = configuration.durations[message.kind] { return .finite(duration) }
        return .sticky
    }

    /// The message is fully shown: its display time starts.
    mutating func beginDisplay(at time: Instant) {
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

    /// Setting `duration`, or making a sticky message finite (or changing its kind), restarts the
    /// timer now; progress reaching 1 ends it `completeDuration` from now; text or progress alone
    /// leave it. A finite message made sticky expires `maxStickySeconds` after its display started.
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

    /// About how long until the queue moves: until the shown message's time ends, at least a second.
    /// During its show animation its time has no deadline yet: it ends its lifetime after the show.
    /// A sticky message's end is unknown (it waits for its sender), so a client is told to look
    /// again in a few seconds rather than at its expiry minutes away.
    private var retryAfter: Interval {
        let second = Interval.seconds(1)
        let stickyRetry = Interval.seconds(5)
        // A held queue moves when the status bar shows again, which only its sender knows.
        guard !statusBar.holdsOverlay else { return stickyRetry }
        guard let current, !current.state.hasEnded else { return second }
        let end: Instant
        if let deadline = current.deadline {
            guard !current.expiresAtDeadline else { return stickyRetry }
            end = deadline
        } else if phase == .showing || isRising, let show = transition {
            switch lifetime(of: current) {
            case .finite(let length): end = show.end + length
            case .sticky: return stickyRetry
            }
        } else {
            return second
        }
        return end > now ? max(second, end - now) : second
    }

    // MARK: - Ending, the queue and the history

    mutating func endCurrent(as state: MessageState, at time: Instant) {
        guard var ended = current.take() else { return }
        end(&ended, as: state, at: time)
        current = ended
    }

    private mutating func end(_ message: inout Message, as state: MessageState, at time: Instant) {
        message.state = state
        message.endedAt = time
        remember(message)
    }

    mutating func remember(_ ended: Message) {
        if let key = ended.key, liveKeys[key] == ended.id { liveKeys[key] = nil }
        history.append(ended)
        recorded.record(ended.id)
        if history.count > configuration.historySize {
            while history.count > configuration.historySize {
                recorded.record(history.removeFirst().id)
            }
        }
    }

    private mutating func enqueue(_ message: consuming Message) {
        tailOrder += 1
        message.queueOrder = tailOrder
        recorded.record(message.id)
        if let time = message.expiresAt { expiries.add(id: message.id, at: time) }
        queue.append(message)
    }

    mutating func enqueueAtHead(_ message: consuming Message) {
        headOrder -= 1
        message.queueOrder = headOrder
        recorded.record(message.id)
        if let time = message.expiresAt { expiries.add(id: message.id, at: time) }
        queue.prepend(message)
    }

    /// The id of the live message with `key`. The shown one is looked at through the optional, not
    /// copied: a copy of a message retains its strings.
    func liveMessageID(withKey key: String) -> Int64? {
        guard let id = liveKeys[key] else { return nil }
        if current?.id == id { return current?.state.hasEnded == false ? id : nil }
        guard let message = message(id: id), !message.state.hasEnded else { return nil }
        return id
    }

    private func endedOrMissing(id: Int64) -> EngineError {
        if let ended = message(id: id), ended.state.hasEnded {
            return .messageEnded(id: id, state: ended.state)
        }
        return .messageNotFound(id: id)
    }
}
