#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// The loop behind `OverlayClient.events()`: fetch the overlay, follow its changes over the event
/// stream (or long-poll), and on any failure wait and start again.
///
/// Every (re)connection begins with a plain `GET /overlay`: it yields what changed while the
/// connection was down, and shows a server that started afresh (a lower version, or the same
/// version with a different state) that `Last-Event-ID` alone would miss.
struct OverlayFollower {
    let client: OverlayClient
    let continuation: AsyncThrowingStream<OverlayEvent, any Error>.Continuation
    /// The follower's own transport, closed when it ends.
    private let transport: any HTTPTransport
    private var mode: OverlayClient.Transport
    /// The last overlay yielded.
    private var last: Overlay?
    /// Failures in a row, for the backoff.
    private var failures = 0
    /// The reconnection delay the server asked for with `retry:`.
    private var serverRetry: Double?

    init(client: OverlayClient, continuation: AsyncThrowingStream<OverlayEvent, any Error>.Continuation) {
        self.client = client
        self.continuation = continuation
        transport = client.makeTransport()
        mode = client.configuration.transport == .longPoll ? .longPoll : .events
    }

    mutating func run() async throws {
        // Closing ends what is in flight and the idle connections the transport keeps.
        defer { transport.close() }
        while true {
            try Task.checkCancellation()
            do {
                try await follow()
            } catch let error as OverlayClientError {
                guard !Self.isFinal(error) else { throw error }
                failures += 1
                let delay = reconnectDelay(after: error)
                continuation.yield(.disconnected(error, retryingIn: delay))
                try await Task.sleep(nanoseconds: UInt64(delay * 1e9))
            }
        }
    }

    /// Errors that trying again cannot mend.
    static func isFinal(_ error: OverlayClientError) -> Bool {
        switch error {
        case .refused(let refusal): [400, 401, 403, 404].contains(refusal.status)
        case .unreachable: false
        case .invalidResponse(let status, _): (200..<300).contains(status)
        }
    }

    /// The server's `retry:` (or the configured delay), doubled for each failure in a row after
    /// the first, capped, with jitter so that many readers of a restarted server do not return
    /// at the same instant; never sooner than a `Retry-After`.
    private func reconnectDelay(after error: OverlayClientError) -> Double {
        let configuration = client.configuration
        let base = serverRetry ?? configuration.reconnectDelay
        let doubled = base * Double(1 << min(failures - 1, 16))
        var delay = min(configuration.maximumReconnectDelay, doubled) * Double.random(in: 0.5...1)
        if case .refused(let refusal) = error, let retryAfter = refusal.retryAfter {
            delay = max(delay, retryAfter)
        }
        return delay
    }

    private mutating func follow() async throws {
        let (head, data) = try await transport.perform(client.request("GET", "/overlay"))
        offer(try OverlayClient.decode(head, data), afterReconnection: true)
        switch mode {
        case .events, .automatic: try await stream()
        case .longPoll: try await poll()
        }
    }

    /// Yields `overlay` if it is new: a newer version; or, first after a reconnection, an older
    /// one or the same version in another state (the server started afresh).
    private mutating func offer(_ overlay: Overlay, afterReconnection: Bool) {
        if let last {
            let newer = overlay.version > last.version
            let restarted =
                afterReconnection
                && (overlay.version < last.version || overlay.at(last.now) != last.at(last.now))
            guard newer || restarted else { return }
        }
        last = overlay
        continuation.yield(.overlay(overlay))
    }

    // MARK: - Server-Sent Events

    private mutating func stream() async throws {
        var request = client.request("GET", "/events", timeout: client.configuration.streamIdleTimeout)
        request.headers["Accept"] = "text/event-stream"
        if let last { request.headers["Last-Event-ID"] = String(last.version) }
        var parser = EventStreamParser()
        var refused: (head: HTTPResponseHead, body: Data)?
        var first = true
        do {
            for try await part in transport.stream(request) {
                switch part {
                case .head(let head):
                    let type = head.value("Content-Type") ?? ""
                    if head.status == 200, type.lowercased().hasPrefix("text/event-stream") {
                        failures = 0
                    } else {
                        refused = (head, Data())
                    }
                case .body(let data):
                    if let body = refused?.body {
                        // Enough of an error page to report; the rest is dropped.
                        if body.count < 65536 { refused?.body.append(data.prefix(65536 - body.count)) }
                        continue
                    }
                    for event in try parser.feed(data) where event.type == "overlay" {
                        offer(try Self.overlay(from: event), afterReconnection: first)
                        first = false
                    }
                    if let retry = parser.retry { serverRetry = Double(retry) / 1000 }
                }
            }
        } catch is EventStreamParser.LineTooLong {
            throw OverlayClientError.invalidResponse(status: 200, reason: "an event-stream line over 1 MiB")
        } catch let error as OverlayClientError
            where error == .timedOut && parser.bytesReceived == 0 && refused == nil
            && client.configuration.transport == .automatic
        {
            // Silent from the first byte to the timeout, although the server has just answered the
            // GET before it: something on the way holds the stream back.
            mode = .longPoll
            return
        }
        if let refused {
            let error = OverlayClient.refusal(refused.head, refused.body)
            if Self.isStreamingUnsupported(refused.head), client.configuration.transport == .automatic {
                mode = .longPoll
                return
            }
            throw error
        }
        throw OverlayClientError.unreachable("the event stream ended")
    }

    /// An answer to `/events` that says streaming will not work here, where long-poll may.
    private static func isStreamingUnsupported(_ head: HTTPResponseHead) -> Bool {
        (200..<300).contains(head.status) || [404, 405, 406, 501].contains(head.status)
    }

    private static func overlay(from event: ServerSentEvent) throws -> Overlay {
        do {
            return try JSONDecoder().decode(Overlay.self, from: Data(event.data.utf8))
        } catch {
            throw OverlayClientError.invalidResponse(
                status: 200, reason: "an event that is not an overlay (\(error)): \(event.data.prefix(200))")
        }
    }

    // MARK: - Long-poll

    private mutating func poll() async throws {
        let wait = Int(min(max(client.configuration.longPollWait, 1), 60).rounded())
        while true {
            var request = client.request(
                "GET", "/overlay", query: [URLQueryItem(name: "wait", value: String(wait))],
                timeout: Double(wait) + client.configuration.requestTimeout)
            if let last { request.headers["If-None-Match"] = "W/\"\(last.version)\"" }
            let (head, data) = try await transport.perform(request)
            switch head.status {
            case 304:
                failures = 0
            case 200:
                failures = 0
                offer(try OverlayClient.decode(head, data), afterReconnection: true)
            default:
                throw OverlayClient.refusal(head, data)
            }
        }
    }
}
