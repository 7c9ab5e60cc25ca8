import CMicroHTTPD
import Synchronization
import TestSupport
import Testing

@testable import MicroHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// The process's `epoll_wait`, which libmicrohttpd's loop calls: a wait right after one that
/// filled its buffer returns at once, any other waits as asked.
@Suite("epoll_wait after a full batch")
struct EpollContinuationTests {
    /// An epoll set watching `ready` pipes that hold a byte (edge-triggered, as libmicrohttpd
    /// watches its connections) and one more, `wake`, empty yet.
    final class ReadySet: Sendable {
        let set: Int32
        /// The pipes' ends: `[read, write]` each.
        let ready: [[Int32]]
        let wake: [Int32]

        init(ready count: Int) {
            func pipeEnds() -> [Int32] {
                var ends: [Int32] = [-1, -1]
                precondition(pipe(&ends) == 0)
                return ends
            }
            set = epoll_create1(Int32(EPOLL_CLOEXEC))
            ready = (0..<count).map { _ in pipeEnds() }
            wake = pipeEnds()
            for ends in ready { _ = write(ends[1], "x", 1) }
            for descriptor in ready.map({ $0[0] }) + [wake[0]] {
                var interest = epoll_event()
                interest.events = EPOLLIN.rawValue | EPOLLET.rawValue
                interest.data.fd = descriptor
                precondition(epoll_ctl(set, EPOLL_CTL_ADD, descriptor, &interest) == 0)
            }
        }

        /// Waits for at most 128 events, as libmicrohttpd does.
        func wait(timeout: Int32) -> Int32 {
            var events = [epoll_event](repeating: epoll_event(), count: 128)
            return epoll_wait(set, &events, 128, timeout)
        }

        func makeWakeReady() {
            _ = write(wake[1], "x", 1)
        }

        deinit {
            for descriptor in ready.joined() + wake + [set] { close(descriptor) }
        }
    }

    /// The calling thread's kernel id (the first field of its /proc stat).
    static func threadID() -> Int32 {
        Int32(TemporaryDirectory.read("/proc/thread-self/stat").split(separator: " ").first ?? "") ?? 0
    }

    /// Whether thread `tid` sleeps in a system call (/proc: state S, after the command name).
    static func sleeps(_ tid: Int32) -> Bool {
        let stat = TemporaryDirectory.read("/proc/self/task/\(tid)/stat")
        guard let close = stat.lastIndex(of: ")") else { return false }
        return stat[close...].dropFirst(2).first == "S"
    }

    @Test func libmicrohttpdsCallsBindToThisProcesssWait() {
        // RTLD_DEFAULT: the global scope, which the dynamic linker searches for libmicrohttpd too.
        let bound = dlsym(UnsafeMutableRawPointer(bitPattern: 0), "epoll_wait")
        #expect(bound == unsafeBitCast(EpollContinuation.entry, to: UnsafeMutableRawPointer.self))
    }

    /// 128 ready fill the buffer; the next wait, nothing being ready, returns 0 at once. A wait
    /// that slept would return the wake's event, which a thread sends once patience runs out.
    @Test func aWaitAfterAFullBatchReturnsAtOnce() {
        let ready = ReadySet(ready: 128)
        #expect(ready.wait(timeout: -1) == 128)
        let done = Atomic(false)
        onDetachedThread {
            _ = eventually { done.load(ordering: .acquiring) }
            ready.makeWakeReady()
        }
        #expect(ready.wait(timeout: -1) == 0)
        done.store(true, ordering: .releasing)
    }

    /// Waits on `first` (which must return `batch`), then on `second`, on a thread of its own;
    /// once that thread sleeps in the second wait (or, were it cut short, is done with it), makes
    /// `second`'s wake ready. Returns what the second wait returned: 1 if it slept until the wake.
    /// (A wake sent before that wait began would let a broken rule pass, never fail a sound one.)
    static func secondWait(after first: ReadySet, returning batch: Int32, on second: ReadySet) -> Int32 {
        let result = Atomic<Int32>(-2)
        let tid = Atomic<Int32>(0)
        onDetachedThread {
            #expect(first.wait(timeout: -1) == batch)
            tid.store(threadID(), ordering: .releasing)
            result.store(second.wait(timeout: -1), ordering: .releasing)
        }
        #expect(
            eventually {
                result.load(ordering: .acquiring) != -2
                    || (tid.load(ordering: .acquiring) != 0 && sleeps(tid.load(ordering: .acquiring)))
            })
        second.makeWakeReady()
        #expect(eventually { result.load(ordering: .acquiring) != -2 })
        return result.load(ordering: .acquiring)
    }

    /// 127 ready do not fill it: the next wait sleeps until the wake's event.
    @Test func aWaitAfterABatchThatWasNotFullSleeps() {
        let ready = ReadySet(ready: 127)
        #expect(Self.secondWait(after: ready, returning: 127, on: ready) == 1)
    }

    /// A full batch on one set does not cut short the next wait on another.
    @Test func aFullBatchOnAnotherSetIsNotContinued() {
        #expect(Self.secondWait(after: ReadySet(ready: 128), returning: 128, on: ReadySet(ready: 0)) == 1)
    }
}
