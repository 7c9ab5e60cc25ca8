import MicroHTTP
import OverlayEngine
import Synchronization

/// What the channels' queues, schedules and histories hold, against `limits.maxMemoryBytes`: a
/// write that could pass the bound is refused (503 `memory_full`) before it changes anything, so
/// that no stranger can make the server, or its next start (which loads everything back), run
/// out of memory. Counted in bytes of the server's own memory, as `MessageMemory` estimates it.
final class MemoryAccount: Sendable {
    let limit: Int
    private let used = Atomic<Int>(0)

    init(limit: Int) {
        self.limit = limit
    }

    var bytes: Int { used.load(ordering: .relaxed) }

    func add(_ bytes: Int) {
        if bytes != 0 { used.add(bytes, ordering: .relaxed) }
    }

    /// Refuses a write that may add `bytes` where they would pass the bound. Writes at the same
    /// moment may each be admitted: the bound is passed by at most a message per pool thread.
    func admit(_ bytes: Int) throws(APIError) {
        guard used.load(ordering: .relaxed) + bytes > limit else { return }
        throw APIError(
            status: 503, code: "memory_full",
            message: "the server holds its limit of \(limit) bytes of messages (limits.maxMemoryBytes); "
                + "retry once messages have ended",
            headers: [Header(name: "Retry-After", value: "10")])
    }
}

/// What a message costs the server's memory: a base measured on this build (the message's
/// record, its place in the queue or history, the stored string objects) and its texts' bytes.
/// docs/OPERATIONS.md, "Memory", has the measurement.
enum MessageMemory {
    static let base = 1_024

    /// What an engine's messages cost: its queue, schedule, history and shown message.
    static func bytes(of engine: OverlayEngine) -> Int {
        let held = engine.held
        return base * held.messages + held.textBytes
    }

    /// The most a write of `input` can add: a new message of its texts, or a message that takes
    /// them (a keyed update or a PATCH adds at most the texts' bytes).
    static func estimate(_ input: MessageInput) -> Int {
        var bytes =
            base + (input.text?.utf8.count ?? 0) + ((input.subtitle ?? nil)?.utf8.count ?? 0)
            + (input.key?.utf8.count ?? 0) + ((input.icon ?? nil)?.utf8.count ?? 0)
        bytes += ((input.click ?? nil)?.utf8.count ?? 0) + ((input.accessibilityLabel ?? nil)?.utf8.count ?? 0)
        for action in input.actions ?? [] {
            bytes += action.id.utf8.count + action.label.utf8.count + (action.url?.utf8.count ?? 0)
        }
        return bytes
    }

    /// The most a tap adds to the message it is kept on (`Tap`): its time and an action's id.
    static let tap = 8 + MessageRules.maximumActionIDLength
}
