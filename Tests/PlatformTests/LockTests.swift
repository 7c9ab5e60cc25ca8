import Platform
import TestSupport
import Testing

/// The project's lock: what it guards is exact under contention, and ThreadSanitizer sees it.
/// `.ci/run` runs this suite under `--sanitize=thread` with `halt_on_error=1`, where the standard
/// library's `Mutex` fails: the same four threads adding under `Mutex.withLock` are reported as a
/// data race on Swift 6.3, because the sanitizer does not see its futex.
@Suite("Lock")
struct LockTests {
    /// Four threads add to one counter under the lock: every addition is counted, and the
    /// sanitizer reports nothing (a report fails the run).
    @Test func fourThreadsAddingUnderTheLock() {
        let counter = Lock(0)
        onThreads(4) { _ in
            for _ in 0..<10_000 { counter.withLock { $0 += 1 } }
        }
        #expect(counter.withLock { $0 } == 40_000)
    }

    /// A value that is not itself Sendable (a class) is reached from many threads only under the
    /// lock, and comes out with every change made to it.
    @Test func aClassValueChangedFromManyThreads() {
        final class Tally {
            var seen: [Int] = []
        }
        let tally = Lock(Tally())
        onThreads(4) { index in
            for step in 0..<100 { tally.withLock { $0.seen.append(index * 100 + step) } }
        }
        #expect(tally.withLock { $0.seen.sorted() } == Array(0..<400))
    }

    /// What the body throws comes out of `withLock` as its own type, and the lock is released.
    @Test func aThrownErrorLeavesTheLockFree() {
        struct Refused: Error, Equatable {}
        let value = Lock("before")
        #expect(throws: Refused.self) {
            try value.withLock { (text) throws(Refused) in
                text = "changed"
                throw Refused()
            }
        }
        #expect(value.withLock { $0 } == "changed")
    }
}
