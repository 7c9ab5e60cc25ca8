import MicroHTTP
import Platform

/// Long-polls and event streams held open with a credential that can end: a created token
/// (revoked) or any credential with an expiry (created tokens, JWTs). A request's access is
/// decided when it arrives, so these are ended when their credential ends: a stream gets
/// `event: error` with the `invalid_token` body, then closes; a long-poll is answered 401.
final class HeldReaders: Sendable {
    enum Reader: Sendable {
        case poll(any HTTPAnswering)
        case stream(HTTPStream)

        var isOver: Bool {
            switch self {
            case .poll(let responder): responder.hasResponded
            case .stream(let stream): stream.isClosed
            }
        }
    }

    private struct Hold: Sendable {
        var token: String?
        var reader: Reader
    }

    private struct State: Sendable {
        var holds: [Int: Hold] = [:]
        var next = 0
        /// How many holds the last sweep for finished ones left: the next sweep waits until there
        /// are twice as many, so that sweeping costs a constant per hold.
        var keptAtLastSweep = 0
    }

    private let state = Lock(State())
    private let scheduler: DeadlineScheduler
    private let wallSeconds: @Sendable () -> Int64
    /// Whether the made token of this id is still live: asked once a hold is registered.
    private let tokenIsLive: @Sendable (String) -> Bool

    init(
        scheduler: DeadlineScheduler, wallSeconds: @escaping @Sendable () -> Int64,
        tokenIsLive: @escaping @Sendable (String) -> Bool
    ) {
        self.scheduler = scheduler
        self.wallSeconds = wallSeconds
        self.tokenIsLive = tokenIsLive
    }

    /// Watches `reader`, held with `principal`'s credential, if that credential can end. A
    /// long-poll says how long it `lasts` at most: one over before its credential expires needs
    /// no deadline of its own.
    func hold(_ reader: Reader, by principal: Principal, lasts seconds: Double? = nil) {
        var token: String?
        if case .created(let id) = principal.kind { token = id }
        guard token != nil || principal.expiresAt != nil else { return }
        let (number, over) = state.withLock { state in
            state.next += 1
            state.holds[state.next] = Hold(token: token, reader: reader)
            var over: [Int] = []
            if state.holds.count > 2 * state.keptAtLastSweep + 64 {
                over = state.holds.compactMap { $0.value.reader.isOver ? $0.key : nil }
                for number in over { state.holds[number] = nil }
                state.keptAtLastSweep = state.holds.count
            }
            return (state.next, over)
        }
        // The expiries of readers that are over go with their holds, so that the scheduler keeps
        // no more of them than there are holds (a JWT may have hours left). One that fires first
        // finds its reader over: ending it again changes nothing.
        if !over.isEmpty { scheduler.forget(over.map { .credential($0) }) }
        if let expiresAt = principal.expiresAt {
            let left = max(0, expiresAt - wallSeconds())
            let outlivesThePoll = seconds.map { Double(left) > $0 } ?? false
            if !outlivesThePoll {
                let deadline = MonotonicClock.nanoseconds() + min(left, Int64.max / 2_000_000_000) * 1_000_000_000
                scheduler.schedule(.credential(number), at: deadline) { [self] in end(number, AccessRefusal.expired) }
            }
        }
        // A revocation that looked for this token's readers before this one was listed: it is
        // ended now, as it would have been then.
        if let token, !tokenIsLive(token) { end(number, .revoked) }
    }

    /// Ends every reader held with the token `id` (it was revoked).
    func end(token id: String) {
        let numbers = state.withLock { state in state.holds.filter { $0.value.token == id }.map(\.key) }
        for number in numbers { end(number, .revoked) }
    }

    /// Ends the reader `number` with `refusal`, and forgets its expiry (nothing, once it fired). A
    /// reader already over is left as it is: its stream refuses the event and has ended.
    private func end(_ number: Int, _ refusal: AccessRefusal) {
        scheduler.schedule(.credential(number), at: nil) {}
        guard let hold = state.withLock({ $0.holds.removeValue(forKey: number) }) else { return }
        let error = refusal.error
        switch hold.reader {
        case .poll(let responder):
            responder.respond(error.response)
        case .stream(let stream):
            _ = stream.send(Array("event: error\ndata: ".utf8) + error.response.body + Array("\n\n".utf8))
            stream.end()
        }
    }

    var count: Int { state.withLock { $0.holds.count } }
}
