import Foundation
import OverlayClient

/// The events a task reads from `OverlayClient.events()`, for the test to look at meanwhile.
final class Collector: @unchecked Sendable {
    private let lock = NSLock()
    private var events: [OverlayEvent] = []
    private var ending: Result<Void, any Error>?
    private(set) var task: Task<Void, Never>!

    init(_ sequence: OverlayEvents) {
        task = Task { [self] in
            do {
                for try await event in sequence { lock.withLock { events.append(event) } }
                lock.withLock { ending = .success(()) }
            } catch {
                lock.withLock { ending = .failure(error) }
            }
        }
    }

    var all: [OverlayEvent] { lock.withLock { events } }

    var overlays: [Overlay] {
        all.compactMap {
            if case .overlay(let overlay) = $0 { return overlay }
            return nil
        }
    }

    var disconnections: [OverlayClientError] {
        all.compactMap {
            if case .disconnected(let error, _) = $0 { return error }
            return nil
        }
    }

    /// How the sequence ended, once it has.
    var end: Result<Void, any Error>? { lock.withLock { ending } }

    /// Whether the last overlay read is `overlay`'s state: same version, same everything but time.
    func hasReached(_ overlay: Overlay) -> Bool {
        guard let last = overlays.last else { return false }
        return last.version == overlay.version && last.at(overlay.now) == overlay.at(overlay.now)
    }
}

extension Collector {
    /// Within each run of the server the versions only grow; between runs (`restarts` of them)
    /// the first overlay of the new run may be older. Answers what breaks that.
    func problems(restarts: Int) -> [String] {
        var problems: [String] = []
        var drops = 0
        for (previous, next) in zip(overlays, overlays.dropFirst()) {
            if next.version == previous.version && next.at(0) == previous.at(0) {
                problems.append("version \(next.version) twice")
            } else if next.version <= previous.version {
                drops += 1
            }
        }
        if drops > restarts { problems.append("\(drops) drops of version for \(restarts) restarts") }
        return problems
    }
}
