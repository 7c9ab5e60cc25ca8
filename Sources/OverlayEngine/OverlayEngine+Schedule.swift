// Scheduled, expiring and prioritised messages (MODEL §11): when a message joins the queue, where
// it stands there, and when it lapses.
extension OverlayEngine {
    /// The messages waiting for their time, due first first.
    public var scheduledMessages: ScheduledMessages { scheduled }

    /// A page of the scheduled messages, as `liveMessages(after:limit:)` pages the live ones; nil
    /// when `cursor` is not scheduled any more.
    public func scheduledMessages(after cursor: Int64?, limit: Int) -> MessagePage? {
        guard let page = scheduled.messages(after: cursor, limit: max(1, limit)) else { return nil }
        return MessagePage(messages: page.messages, next: page.more ? page.messages.last?.id : nil)
    }

    /// Up to `limit` ended messages still in the history, the most recently ended first, after
    /// the one with id `after` (from the latest when nil); nil if `after` has left the history.
    public func endedMessages(after cursor: Int64?, limit: Int) -> MessagePage? {
        var end = history.count
        if let cursor {
            guard let position = history.position(of: cursor) else { return nil }
            end = position
        }
        let start = max(0, end - max(1, limit))
        let messages = (start..<end).reversed().map { history[$0] }
        return MessagePage(messages: messages, next: start > 0 ? messages.last?.id : nil)
    }

    /// The priority a message waits with: its sender's, or its kind's.
    func priority(of message: Message) -> Priority {
        message.requestedPriority ?? configuration.priorities[message.kind] ?? .default
    }

    /// When an input asks to join the queue, on this clock; nil for now (no time, or one that
    /// has come). An `at` more than `maximumWait` ahead is refused, as a `delay` that long is.
    func dueTime(of input: MessageInput) -> Result<Instant?, EngineError> {
        if let delay = input.delay { return .success(now + delay) }
        guard let at = input.at else { return .success(nil) }
        let due: Instant
        switch (at, configuration.wallClockEpoch) {
        case (.number(let seconds), nil):
            due = .seconds(seconds)
        case (.number(let seconds), let epoch?):
            due = Instant(nanoseconds: Interval.seconds(seconds).nanoseconds) + Interval(nanoseconds: -epoch)
        case (.calendar(let unix), let epoch?):
            due = Instant(nanoseconds: unix) + Interval(nanoseconds: -epoch)
        case (.calendar, nil):
            return .failure(
                .invalidField(field: "at", reason: "must be a number of seconds on the manual clock, not a date"))
        }
        guard due > now else { return .success(nil) }
        guard due - now <= MessageRules.maximumWait else {
            return .failure(.invalidField(field: "at", reason: "must be at most 7 days (604800 seconds) ahead"))
        }
        return .success(due)
    }

    /// A new message waits for its time, unless `maxScheduled` already do.
    mutating func schedule(_ new: Message, due: Instant) -> Result<PostOutcome, EngineError> {
        guard scheduled.count < configuration.maxScheduled else {
            let first = scheduled.first?.scheduledFor ?? now
            return .failure(
                .scheduleFull(
                    limit: configuration.maxScheduled, retryAfter: max(.seconds(1), first - now)))
        }
        var message = new
        message.state = .scheduled
        message.scheduledFor = due
        nextID += 1
        if let key = message.key { liveKeys[key] = message.id }
        recorded.record(message.id)
        scheduled.insert(message)
        version += 1
        return .success(.created(message))
    }

    /// A scheduled message's new fields and, if asked, its new time: one that has come joins now.
    mutating func reschedule(id: Int64, to changed: Message, input: MessageInput) -> Result<Message, EngineError> {
        var message = changed
        message.priority = priority(of: message)
        if input.isScheduling {
            switch dueTime(of: input) {
            case .failure(let error): return .failure(error)
            case .success(let due?): message.scheduledFor = due
            case .success(nil):
                scheduled.remove(id: id)
                message.joinedAt = now
                place(message)
                recorded.record(id)
                return .success(message)
            }
        }
        scheduled.update(id: id) { $0 = message }
        recorded.record(id)
        return .success(message)
    }

    /// The first scheduled message's time has come: it joins the queue as if posted now.
    mutating func scheduledTimeCame(at time: Instant) {
        guard let first = scheduled.first else { return }
        var message = scheduled.remove(id: first.id) ?? first
        message.joinedAt = time
        place(message)
    }

    /// The first waiting message to expire does, unless it was shown meanwhile.
    mutating func waitingMessageExpired(at time: Instant) {
        guard let id = expiries.earliest?.id, var message = queue.remove(id: id) else { return }
        message.state = .expired
        message.endedAt = time
        remember(message)
    }

    /// The waiting message `id` gets new fields: a new priority or kind moves it in the queue, a
    /// new `expires` counts from when it joined.
    mutating func updateWaiting(id: Int64, to changed: Message, from old: Message) {
        var message = changed
        message.priority = priority(of: message)
        if message.expires != old.expires, !old.hasBeenShown {
            message.expiresAt = message.expires.map { (message.joinedAt ?? now) + $0 }
            if let time = message.expiresAt { expiries.add(id: id, at: time) }
        }
        queue.update(id: id) { $0 = message }
        recorded.record(id)
    }
}
