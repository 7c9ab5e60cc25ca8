/// What `OverlayClient.events()` reports: each new overlay, and each loss of the connection.
public enum OverlayEvent: Sendable, Hashable {
    /// A new overlay: a newer version, or the first one after the server started afresh.
    case overlay(Overlay)
    /// The connection was lost or could not be made; the next attempt comes in `retryingIn` seconds.
    case disconnected(OverlayClientError, retryingIn: Double)
}

extension OverlayClient {
    /// The overlay now, then every change, for as long as the iterating task runs.
    ///
    /// It follows `/events` and reconnects on its own (with `Last-Event-ID`, after the server's
    /// `retry:` delay, doubling on each failure in a row up to `maximumReconnectDelay`), falls back
    /// to long-poll where streaming does not work, and never yields a version twice, nor one older
    /// than the last while the server keeps its state. A server that started afresh
    /// (`--ephemeral`: versions from 0 again), found on reconnecting, is followed from its current
    /// overlay on. It ends when the task is cancelled, closing its connection, and throws only what
    /// retrying cannot mend (400, 401, 403, 404, an answer that is not an overlay).
    public func updates() -> OverlayUpdates {
        OverlayUpdates(events: events())
    }

    /// `updates()` with the connection's losses too, for a reader that shows them.
    public func events() -> OverlayEvents {
        OverlayEvents(client: self)
    }
}

/// The overlays of `OverlayClient.updates()`.
public struct OverlayUpdates: AsyncSequence, Sendable {
    public typealias Element = Overlay

    let events: OverlayEvents

    /// Reads the overlays of one connection's events.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var events: OverlayEvents.AsyncIterator

        public mutating func next() async throws -> Overlay? {
            while let event = try await events.next() {
                if case .overlay(let overlay) = event { return overlay }
            }
            return nil
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(events: events.makeAsyncIterator())
    }
}

/// The events of `OverlayClient.events()`. Each iteration has its own connection.
public struct OverlayEvents: AsyncSequence, Sendable {
    public typealias Element = OverlayEvent

    let client: OverlayClient

    /// A reader that falls behind by more than this many events gets the latest ones, as the
    /// server's own streams do: every overlay is a whole state, so the newest is what matters.
    static let buffered = 64

    /// Reads the events of one connection, opened when the iterator is made.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: AsyncThrowingStream<OverlayEvent, any Error>.AsyncIterator
        /// The task that follows the overlay, awaited once the events end: then nothing of the
        /// connection is still under way, and a process that exits next cuts no request off.
        let follower: Task<Void, Never>

        public mutating func next() async throws -> OverlayEvent? {
            let event: OverlayEvent?
            do {
                event = try await base.next()
            } catch {
                await follower.value
                throw error
            }
            if event == nil { await follower.value }
            return event
        }
    }

    public func makeAsyncIterator() -> AsyncIterator {
        let (stream, continuation) = AsyncThrowingStream.makeStream(
            of: OverlayEvent.self, bufferingPolicy: .bufferingNewest(Self.buffered))
        let client = client
        let task = Task {
            var follower = OverlayFollower(client: client, continuation: continuation)
            do {
                try await follower.run()
                continuation.finish()
            } catch is CancellationError {
                continuation.finish()
            } catch {
                continuation.finish(throwing: error)
            }
        }
        continuation.onTermination = { _ in task.cancel() }
        return AsyncIterator(base: stream.makeAsyncIterator(), follower: task)
    }
}
