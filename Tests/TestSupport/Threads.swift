#if canImport(Glibc)
    import Glibc
#endif

/// Runs `body(i)` for i in 0..<count, each on its own POSIX thread, all at once, and waits for all:
/// real parallel clients even on a machine with few cores (Dispatch's pool would run them two at a
/// time there).
public func onThreads(_ count: Int, _ body: @escaping @Sendable (Int) -> Void) {
    final class Job {
        let index: Int
        let body: @Sendable (Int) -> Void
        init(index: Int, body: @escaping @Sendable (Int) -> Void) {
            self.index = index
            self.body = body
        }
    }
    var threads: [pthread_t] = []
    for index in 0..<count {
        var thread = pthread_t()
        let job = Unmanaged.passRetained(Job(index: index, body: body)).toOpaque()
        let result = pthread_create(
            &thread, nil,
            { context in
                let job = Unmanaged<Job>.fromOpaque(context!).takeRetainedValue()
                job.body(job.index)
                return nil
            }, job)
        precondition(result == 0, "pthread_create failed: \(result)")
        threads.append(thread)
    }
    for thread in threads { pthread_join(thread, nil) }
}
