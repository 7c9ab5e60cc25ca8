import Testing

@testable import OverlayEngine

// Shorthands that keep each test a short script: the model's numbers (docs/MODEL.md) stay in the tests themselves.

/// An engine with the model's defaults (docs/MODEL.md) (ipad, portrait, slide, linear), changed by `configure`.
func makeEngine(_ configure: (inout EngineConfiguration) -> Void = { _ in }) -> OverlayEngine {
    var configuration = EngineConfiguration()
    configure(&configuration)
    return OverlayEngine(configuration: configuration)
}

extension MessageInput {
    /// A message as a sender posts it; `duration` in seconds.
    static func message(
        _ text: String,
        kind: MessageKind? = nil,
        subtitle: String? = nil,
        icon: String? = nil,
        progress: Double?? = nil,
        duration: Double? = nil,
        immediate: Bool? = nil,
        key: String? = nil
    ) -> MessageInput {
        MessageInput(
            kind: kind, text: text, subtitle: subtitle.map { .some($0) }, icon: icon.map { .some($0) },
            progress: progress, duration: duration.map { Interval.seconds($0) },
            immediate: immediate, key: key)
    }

    /// A message scheduled `delay` seconds after it is posted, or `at` a time.
    static func later(_ text: String, delay: Double? = nil, at: ScheduleTime? = nil, key: String? = nil) -> MessageInput
    {
        var input = MessageInput.message(text, key: key)
        input.delay = delay.map { .seconds($0) }
        input.at = at
        return input
    }

    /// A message that expires `seconds` after it is posted unless it has shown by then.
    static func expiring(_ text: String, after seconds: Double, kind: MessageKind? = nil) -> MessageInput {
        var input = MessageInput.message(text, kind: kind)
        input.expires = .seconds(seconds)
        return input
    }

    /// A message of `priority`.
    static func ranked(_ text: String, _ priority: Priority?, kind: MessageKind? = nil) -> MessageInput {
        var input = MessageInput.message(text, kind: kind)
        input.priority = priority
        return input
    }
}

/// A refusal a test did not expect, or an update where a new message was expected.
struct UnexpectedOutcome: Error {
    var description: String
}

extension OverlayEngine {
    /// Posts a message the test expects to be accepted as a new one, and returns it as accepted.
    @discardableResult
    mutating func posted(_ input: MessageInput, at time: Instant) throws -> Message {
        switch post(input, at: time).value {
        case .success(.created(let message)): return message
        case .success(.updated(let message)): throw UnexpectedOutcome(description: "updated \(message.id)")
        case .failure(let error): throw error
        }
    }

    /// Changes a message the test expects to be changeable (PATCH), and returns it as changed.
    @discardableResult
    mutating func patched(_ id: Int64, _ input: MessageInput, at time: Instant) throws -> Message {
        try update(id: id, with: input, at: time).value.get()
    }

    /// Deletes a message the test expects to be deletable, and returns it as it ended.
    @discardableResult
    mutating func deleted(_ id: Int64, at time: Instant) throws -> Message {
        try delete(id: id, at: time).value.get()
    }
}

extension PostOutcome {
    /// Whether the POST updated a live message with its key (200) rather than creating one (202).
    var isUpdate: Bool {
        if case .updated = self { return true }
        return false
    }
}

extension Result where Failure == EngineError {
    /// The field an `invalidField` refusal names, `nil` for anything else.
    var refusedField: String? {
        if case .failure(.invalidField(let field, _)) = self { return field }
        return nil
    }
}

/// Whether two computed lengths agree to well below a point's billionth.
func isClose(_ a: Double, _ b: Double, tolerance: Double = 1e-9) -> Bool {
    abs(a - b) <= tolerance
}

extension TextMetrics {
    /// Widths a test can work out by hand: 7 points a character in the title, 6 in the subtitle.
    static let bySevenAndSix = TextMetrics(name: "test 7/6") { text, role in
        Double(text.count) * (role == .title ? 7 : 6)
    }
}

extension Transition {
    /// A contentOffset animation as `GET /overlay` describes it, in seconds.
    static func contentOffset(from: Double, to: Double, start: Double, duration: Double) -> Transition {
        Transition(property: .contentOffset, from: from, to: to, start: .seconds(start), length: .seconds(duration))
    }

    /// An alpha animation as `GET /overlay` describes it, in seconds.
    static func alpha(from: Double, to: Double, start: Double, duration: Double) -> Transition {
        Transition(property: .alpha, from: from, to: to, start: .seconds(start), length: .seconds(duration))
    }
}

extension OverlayEngine {
    /// What a walk over the queue, the schedule, the history and the shown message finds: the
    /// count the engine keeps of its messages' text must equal it.
    var walked: (messages: Int, textBytes: Int) {
        var messages = Array(queue) + Array(scheduledMessages) + Array(history)
        if let shown = current, !shown.state.hasEnded { messages.append(shown) }
        return (messages.count, messages.reduce(0) { $0 + $1.textBytes })
    }
}

/// Core Animation's ease-in-ease-out: the cubic Bézier (0,0) (0.42,0) (0.58,1) (1,1), solved here
/// independently by Newton's method on x(t).
func bezierEaseInOut(_ x: Double) -> Double {
    func bezier(_ t: Double, _ p1: Double, _ p2: Double) -> Double {
        3 * (1 - t) * (1 - t) * t * p1 + 3 * (1 - t) * t * t * p2 + t * t * t
    }
    func slope(_ t: Double, _ p1: Double, _ p2: Double) -> Double {
        3 * (1 - t) * (1 - t) * p1 + 6 * (1 - t) * t * (p2 - p1) + 3 * t * t * (1 - p2)
    }
    var t = x
    for _ in 0..<50 { t -= (bezier(t, 0.42, 0.58) - x) / slope(t, 0.42, 0.58) }
    return bezier(t, 0, 1)
}
