#if canImport(Glibc)
    import Glibc
#endif

/// How long a test waits for something that must happen: generous, because the whole run shares
/// two cores with whatever else loads them; a condition that holds returns at once.
public let patience = 30.0

/// Polls `condition` every 10 ms until it holds or `seconds` pass; answers whether it held.
/// Disfavoured so that an async test gets the other, which holds no thread of the pool.
@_disfavoredOverload
public func eventually(within seconds: Double = patience, _ condition: () throws -> Bool) rethrows -> Bool {
    let deadline = Deadline(after: seconds)
    while !deadline.hasPassed {
        if try condition() { return true }
        usleep(10_000)
    }
    return try condition()
}

/// `eventually` for a condition that awaits; it sleeps as a task, so it holds no thread of the pool.
public func eventually(
    within seconds: Double = patience, _ condition: () async throws -> Bool
) async rethrows -> Bool {
    let deadline = Deadline(after: seconds)
    while !deadline.hasPassed {
        if try await condition() { return true }
        try? await Task.sleep(nanoseconds: 10_000_000)
    }
    return try await condition()
}
