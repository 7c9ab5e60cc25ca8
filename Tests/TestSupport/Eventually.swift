#if canImport(Glibc)
    import Glibc
#endif

/// How long a test waits for something that must happen: generous, because the whole run shares
/// two cores with whatever else loads them; a condition that holds returns at once.
public let patience = 30.0

/// The patience a wait has left. Each look counts for the time it took, but for 0.1 s at most: a
/// test held off its thread (the shared pool of as many threads as cores, taken by tests that
/// block) spends no patience meanwhile, so a wait ends because the thing did not happen, not
/// because the waiter could not look.
private struct Patience {
    private var left: Double
    private var lookStarted = Deadline(after: 0)

    init(_ seconds: Double) {
        left = seconds
    }

    /// Counts the look that just ended; false once no patience is left.
    mutating func spend() -> Bool {
        left -= min(0.1, lookStarted.overdue)
        lookStarted = Deadline(after: 0)
        return left > 0
    }
}

/// Polls `condition` every 10 ms until it holds or `seconds` of looking pass; answers whether it
/// held. Disfavoured so that an async test gets the other, which holds no thread of the pool.
@_disfavoredOverload
public func eventually(within seconds: Double = patience, _ condition: () throws -> Bool) rethrows -> Bool {
    var patience = Patience(seconds)
    repeat {
        if try condition() { return true }
        usleep(10_000)
    } while patience.spend()
    return try condition()
}

/// `eventually` for a condition that awaits; it sleeps as a task, so it holds no thread of the pool.
public func eventually(
    within seconds: Double = patience, _ condition: () async throws -> Bool
) async rethrows -> Bool {
    var patience = Patience(seconds)
    repeat {
        if try await condition() { return true }
        try? await Task.sleep(nanoseconds: 10_000_000)
    } while patience.spend()
    return try await condition()
}
