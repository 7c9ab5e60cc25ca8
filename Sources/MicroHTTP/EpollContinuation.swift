internal import CMicroHTTPD

#if canImport(Glibc)
    import Glibc
#endif

/// MHD 0.9.75 (and 1.0.0 still): its epoll loop takes the kernel's ready list in batches of 128
/// and, after a full batch, calls `epoll_wait` again with the loop's own timeout before it
/// serves any of them: when nothing else was ready, its thread sleeps with 128 connections taken
/// and unserved until something else happens on it or the idle timeout passes. A fan-out's 128
/// answers, or 128 requests arriving while the thread is busy, are such a batch.
///
/// This process defines `epoll_wait` (the dynamic linker binds libmicrohttpd's calls to the
/// executable's definition before libc's) so that such a second call never sleeps: a call on the
/// epoll set whose last wait on this thread filled the whole buffer has timeout 0. Any caller may
/// get 0 events from a wait, so other users of `epoll_wait` see nothing new.
enum EpollContinuation {
    /// Per thread, the epoll set whose last wait filled its buffer, plus one (absent: none).
    static let fullSet: pthread_key_t = {
        var key = pthread_key_t()
        precondition(pthread_key_create(&key, nil) == 0, "no thread-specific key left")
        return key
    }()

    /// The definition libmicrohttpd's calls should find (taken here: a C pointer to it made in
    /// another module would define the symbol a second time).
    static let entry: @convention(c) (Int32, UnsafeMutableRawPointer?, Int32, Int32) -> Int32 = overlaydEpollWait

    /// `epoll_wait`, not sleeping when it continues a full batch on the same set.
    static func wait(_ set: Int32, _ events: UnsafeMutableRawPointer?, _ capacity: Int32, _ timeout: Int32) -> Int32 {
        let marker = Int(set) + 1
        let last = Int(bitPattern: pthread_getspecific(fullSet))
        let buffer = events?.assumingMemoryBound(to: epoll_event.self)
        let count = epoll_pwait(set, buffer, capacity, last == marker ? 0 : timeout, nil)
        let now = capacity > 0 && count == capacity ? marker : 0
        if now != last {
            // pthread_setspecific answers by its result: errno stays the wait's, for the caller.
            _ = pthread_setspecific(fullSet, UnsafeRawPointer(bitPattern: now))
        }
        return count
    }
}

/// The definition libmicrohttpd's `epoll_wait` calls resolve to (see `EpollContinuation`).
@_cdecl("epoll_wait")
public func overlaydEpollWait(
    _ set: Int32, _ events: UnsafeMutableRawPointer?, _ capacity: Int32, _ timeout: Int32
) -> Int32 {
    EpollContinuation.wait(set, events, capacity, timeout)
}
