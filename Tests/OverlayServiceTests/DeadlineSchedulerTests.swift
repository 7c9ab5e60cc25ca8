import Platform
import Synchronization
import TestSupport
import Testing

@testable import OverlayService

#if canImport(Glibc)
    import Glibc
#endif

/// The scheduler's deadlines: `DeadlineQueue` with plain numbers for time (ordering, replacement,
/// cancellation, stale entries), and the thread on the real clock.
@Suite("Deadline scheduler")
struct DeadlineSchedulerTests {
    /// Every payload due at `now`, in the order they come out.
    static func drain(_ queue: inout DeadlineQueue<TimerKey, String>, now: Int64) -> [String] {
        var fired: [String] = []
        while let due = queue.popDue(now: now) { fired.append(due.payload) }
        return fired
    }

    @Test func earliestFirstWhateverTheOrderOfScheduling() {
        var queue = DeadlineQueue<TimerKey, String>()
        let deadlines: [(TimerKey, Int64)] = [
            (.engine(channel: 3), 30), (.heartbeat, 10), (.waiters(channel: 3), 50), (.sweep, 20),
            (.engine(channel: 1), 40), (.waiters(channel: 1), 5),
        ]
        for (key, deadline) in deadlines { queue.schedule(key, at: deadline, "\(deadline)") }
        #expect(queue.count == 6)
        #expect(queue.earliest == 5)
        #expect(DeadlineSchedulerTests.drain(&queue, now: 4).isEmpty)
        #expect(DeadlineSchedulerTests.drain(&queue, now: 25) == ["5", "10", "20"])
        #expect(queue.earliest == 30)
        #expect(DeadlineSchedulerTests.drain(&queue, now: 100) == ["30", "40", "50"])
        #expect(queue.earliest == nil)
        #expect(queue.count == 0)
    }

    /// Equal deadlines come out in the order they were scheduled.
    @Test func tiesInOrderOfScheduling() {
        var queue = DeadlineQueue<TimerKey, String>()
        queue.schedule(.sweep, at: 7, "sweep")
        queue.schedule(.engine(channel: 0), at: 7, "engine")
        queue.schedule(.heartbeat, at: 7, "heartbeat")
        #expect(DeadlineSchedulerTests.drain(&queue, now: 7) == ["sweep", "engine", "heartbeat"])
    }

    /// Scheduling a key again replaces its deadline and payload, earlier or later; the old one
    /// never fires.
    @Test func replacing() {
        var queue = DeadlineQueue<TimerKey, String>()
        queue.schedule(.engine(channel: 1), at: 10, "old")
        queue.schedule(.engine(channel: 2), at: 20, "other")
        queue.schedule(.engine(channel: 1), at: 30, "later")
        #expect(queue.count == 2)
        #expect(queue.deadline(of: .engine(channel: 1)) == 30)
        #expect(queue.earliest == 20)
        #expect(DeadlineSchedulerTests.drain(&queue, now: 25) == ["other"])
        queue.schedule(.engine(channel: 1), at: 15, "earlier")
        #expect(DeadlineSchedulerTests.drain(&queue, now: 100) == ["earlier"])
    }

    /// `schedule` says when the new deadline is the earliest: then a sleeping thread must wake.
    @Test func scheduleReportsANewEarliest() {
        var queue = DeadlineQueue<TimerKey, String>()
        let wakes = [
            queue.schedule(.heartbeat, at: 100, "a"),
            queue.schedule(.sweep, at: 200, "b"),
            queue.schedule(.engine(channel: 0), at: 100, "tie"),
            queue.schedule(.waiters(channel: 0), at: 50, "c"),
            // Moving the earliest key later: the thread sleeps too short and looks again, which
            // is harmless, so no wake-up is needed.
            queue.schedule(.waiters(channel: 0), at: 300, "c"),
        ]
        #expect(wakes == [true, false, false, true, false])
        #expect(queue.earliest == 100)
    }

    @Test func cancelling() {
        var queue = DeadlineQueue<TimerKey, String>()
        queue.schedule(.waiters(channel: 4), at: 10, "cancelled")
        queue.schedule(.engine(channel: 4), at: 20, "kept")
        queue.cancel(.waiters(channel: 4))
        queue.cancel(.sweep)
        #expect(queue.count == 1)
        #expect(queue.deadline(of: .waiters(channel: 4)) == nil)
        #expect(queue.earliest == 20)
        #expect(DeadlineSchedulerTests.drain(&queue, now: 100) == ["kept"])
        // A key cancelled and scheduled again fires once, at its new time.
        queue.schedule(.sweep, at: 5, "first")
        queue.cancel(.sweep)
        queue.schedule(.sweep, at: 8, "second")
        #expect(DeadlineSchedulerTests.drain(&queue, now: 100) == ["second"])
    }

    /// Many replacements of a few keys (a channel rescheduling on every change) leave stale heap
    /// entries behind; the heap is rebuilt before they pile up, and nothing stale ever fires.
    @Test func staleEntriesStayBounded() {
        var queue = DeadlineQueue<TimerKey, Int>()
        var expected: [TimerKey: Int64] = [:]
        var generator = SplitMix(seed: 7)
        for step in 0..<10_000 {
            let key: TimerKey = .engine(channel: Int.random(in: 0..<5, using: &generator))
            let deadline = Int64.random(in: 0..<1_000_000, using: &generator)
            queue.schedule(key, at: deadline, step)
            expected[key] = deadline
            #expect(queue.storedEntries <= 2 * queue.count + 33)
        }
        var fired: [Int64] = []
        while let due = queue.popDue(now: .max) {
            fired.append(expected[due.key]!)
            expected[due.key] = nil
        }
        #expect(fired.count == 5)
        #expect(fired == fired.sorted())
        #expect(expected.isEmpty)
    }

    /// Against a plain list of deadlines: after any mix of schedules, cancels and pops, the queue
    /// pops exactly what is due, earliest first.
    @Test func agreesWithAListModel() {
        var queue = DeadlineQueue<TimerKey, Int64>()
        var model: [TimerKey: Int64] = [:]
        var generator = SplitMix(seed: 42)
        var now: Int64 = 0
        for _ in 0..<5_000 {
            let key: TimerKey =
                switch Int.random(in: 0..<4, using: &generator) {
                case 0: .engine(channel: Int.random(in: 0..<20, using: &generator))
                case 1: .waiters(channel: Int.random(in: 0..<20, using: &generator))
                case 2: .heartbeat
                default: .sweep
                }
            switch Int.random(in: 0..<10, using: &generator) {
            case 0..<6:
                let deadline = now + Int64.random(in: 0..<1_000, using: &generator)
                queue.schedule(key, at: deadline, deadline)
                model[key] = deadline
            case 6..<8:
                queue.cancel(key)
                model[key] = nil
            default:
                now += Int64.random(in: 0..<300, using: &generator)
                var popped: [Int64] = []
                while let due = queue.popDue(now: now) { popped.append(due.payload) }
                let due = model.filter { $0.value <= now }
                #expect(popped.sorted() == due.values.sorted())
                #expect(popped == popped.sorted())
                for key in due.keys { model[key] = nil }
            }
            #expect(queue.count == model.count)
            #expect(queue.earliest == model.values.min())
        }
    }

    /// The thread: actions run at their deadlines in order, a replaced or cancelled deadline
    /// does not fire, and `stop` ends it and lets go of what is scheduled. The thread is held in
    /// a first action while the rest are scheduled, so no deadline can pass before its
    /// replacement or cancellation arrives, however slowly this test runs.
    @Test func threadFiresInOrder() throws {
        let scheduler = DeadlineScheduler()
        let fired = Lock<[String]>([])
        let held = Atomic(false)
        let released = Atomic(false)
        let start = MonotonicClock.nanoseconds()
        let millisecond: Int64 = 1_000_000
        func record(_ name: String) -> DeadlineScheduler.Action { { fired.withLock { $0.append(name) } } }
        scheduler.schedule(.credential(0), at: start) {
            held.store(true, ordering: .releasing)
            while !released.load(ordering: .acquiring) { usleep(1_000) }
        }
        #expect(eventually { held.load(ordering: .acquiring) })
        scheduler.schedule(.engine(channel: 0), at: start + 60 * millisecond, action: record("engine"))
        scheduler.schedule(.heartbeat, at: start + 20 * millisecond, action: record("heartbeat"))
        scheduler.schedule(.sweep, at: start + 40 * millisecond, action: record("sweep, replaced"))
        scheduler.schedule(.sweep, at: start + 30 * millisecond, action: record("sweep"))
        scheduler.schedule(.waiters(channel: 0), at: start + 10 * millisecond, action: record("cancelled"))
        scheduler.schedule(.waiters(channel: 0), at: nil, action: record("cancelled"))
        released.store(true, ordering: .releasing)
        // Everything that could wrongly fire is due before "engine", and due deadlines fire
        // earliest first however late the thread wakes: once "engine" has fired, the list is final.
        #expect(eventually { fired.withLock { $0.last } == "engine" })
        // A deadline far off is pending when the scheduler stops: it is dropped with its action.
        final class Held: Sendable {}
        weak var pending: Held?
        do {
            let held = Held()
            pending = held
            scheduler.schedule(.engine(channel: 1), at: start + 3_600_000 * millisecond) { _ = held }
        }
        #expect(pending != nil)
        scheduler.stop()
        #expect(pending == nil, "a stopped scheduler still holds an action")
        #expect(fired.withLock { $0 } == ["heartbeat", "sweep", "engine"])
        // After `stop` nothing is scheduled any more: the action is not kept, so it can never run.
        weak var late: Held?
        do {
            let held = Held()
            late = held
            scheduler.schedule(.heartbeat, at: MonotonicClock.nanoseconds()) { _ = held }
        }
        #expect(late == nil, "a stopped scheduler took an action")
        #expect(fired.withLock { $0 }.count == 3)
    }
}

/// Handovers stamped with a generation: a channel decides its deadlines under its lock and hands
/// them over after it, so two can arrive in the other order.
@Suite("Deadline handovers")
struct DeadlineHandoverTests {
    /// The newer decision stands whatever order the two arrive in: the older one, arriving
    /// last, neither replaces it nor cancels it, and says it wakes nobody.
    @Test func anOlderHandoverArrivingLastIsIgnored() {
        var queue = DeadlineQueue<TimerKey, String>()
        let key = TimerKey.engine(channel: 1)
        let newerWakes = queue.schedule(key, at: 10, generation: 2, "newer")
        let olderWakes = queue.schedule(key, at: 5, generation: 1, "older")
        #expect(newerWakes && !olderWakes)
        #expect(queue.deadline(of: key) == 10)
        queue.schedule(key, at: nil, generation: 1, "older cancel")
        #expect(queue.deadline(of: key) == 10)
        #expect(DeadlineSchedulerTests.drain(&queue, now: 100) == ["newer"])
        // Once fired, a handover of that generation or older cannot bring a decision back.
        queue.schedule(key, at: 40, generation: 2, "repeat")
        #expect(queue.count == 0)
        queue.schedule(key, at: 50, generation: 3, "next")
        #expect(queue.deadline(of: key) == 50)
        queue.schedule(key, at: nil, generation: 4, "cancel")
        #expect(queue.count == 0)
    }

    /// Stamps are per key: another key's generations do not hide this one's.
    @Test func generationsArePerKey() {
        var queue = DeadlineQueue<TimerKey, String>()
        queue.schedule(.waiters(channel: 1), at: 5, generation: 9, "waiters")
        queue.schedule(.engine(channel: 1), at: 7, generation: 1, "engine")
        #expect(queue.count == 2)
        #expect(DeadlineSchedulerTests.drain(&queue, now: 7) == ["waiters", "engine"])
    }
}

/// What the queue keeps for keys whose owners are gone.
@Suite("Deadline keys forgotten")
struct DeadlineForgetTests {
    /// A key forgotten takes no room: neither its deadline nor its handover order stays.
    @Test func forgottenKeysTakeNoRoom() {
        var queue = DeadlineQueue<TimerKey, String>()
        for channel in 0..<100 {
            queue.schedule(.waiters(channel: channel), at: Int64(channel), generation: 1, "w")
            queue.schedule(.waiters(channel: channel), at: nil, generation: 2, "cancelled")
        }
        #expect(queue.count == 0)
        #expect(queue.orderedKeys == 100)
        for channel in 0..<100 { queue.forget(.waiters(channel: channel)) }
        #expect(queue.orderedKeys == 0)
    }
}
