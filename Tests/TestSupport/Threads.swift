#if canImport(Glibc)
    import Glibc
#endif

/// The closure a thread runs, boxed to pass through `pthread_create`'s context pointer.
private final class ThreadJob {
    let index: Int
    let body: @Sendable (Int) -> Void
    init(index: Int, body: @escaping @Sendable (Int) -> Void) {
        self.index = index
        self.body = body
    }
}

private func startThread(_ job: ThreadJob) -> pthread_t {
    var thread = pthread_t()
    let context = Unmanaged.passRetained(job).toOpaque()
    let result = pthread_create(
        &thread, nil,
        { context in
            let job = Unmanaged<ThreadJob>.fromOpaque(context!).takeRetainedValue()
            job.body(job.index)
            return nil
        }, context)
    precondition(result == 0, "pthread_create failed: \(result)")
    return thread
}

/// Runs `body(i)` for i in 0..<count, each on its own POSIX thread, all at once, and waits for all:
/// real parallel clients even on a machine with few cores (Dispatch's pool would run them two at a
/// time there).
public func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    let threads = (0..<count).map { startThread(ThreadJob(index: $0, body: body)) }
    for thread in threads { pthread_join(thread, nil) }
}

/// Runs `body` on a thread of its own, not waited for: for a blocking loop (an accept loop, a
/// connection's reads), which on Dispatch's pool of as many threads as cores would starve others.
public func onDetachedThread(_ body: @escaping @Sendable () -> Void) {
    pthread_detach(startThread(ThreadJob(index: 0) { _ in body() }))
}
