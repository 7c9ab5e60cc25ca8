import Foundation

/// Runs blocking work (waiting for a process, reading a pipe) on a thread of its own and awaits
/// it. Every test's tasks share a pool of as many threads as the machine has cores; a test that
/// blocked one of them would starve the others (an update stream waiting for its turn to read).
func offPool<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
    try await withCheckedThrowingContinuation { continuation in
        Thread.detachNewThread { continuation.resume(with: Result { try body() }) }
    }
}
