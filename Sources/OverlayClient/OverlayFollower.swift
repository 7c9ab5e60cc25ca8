import Foundation

#if canImport(FoundationNetworking)
    import FoundationNetworking
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
    private let delegate = StreamingDelegate()
    private let session: URLSession
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
        let configuration = URLSessionConfiguration.ephemeral
        configuration.urlCache = nil
        configuration.requestCachePolicy = .reloadIgnoringLocalCacheData
        session = URLSession(configuration: configuration, delegate: delegate, delegateQueue: nil)
        mode = client.configuration.transport == .longPoll ? .longPoll : .events
    }

    mutating func run() async throws {
        // Invalidating cancels what is in flight and lets the session close its idle connections.
        defer { session.invalidateAndCancel() }
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
        let (response, data) = try await HTTPExchange.perform(
            client.request("GET", "/overlay"), in: session)
        offer(try OverlayClient.decode(response, data), afterReconnection: true)
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
        request.setValue("text/event-stream", forHTTPHeaderField: "Accept")
        if let last { request.setValue(String(last.version), forHTTPHeaderField: "Last-Event-ID") }
        var parser = EventStreamParser()
        var refused: (response: HTTPURLResponse, body: Data)?
        var first = true
        do {
            for try await part in delegate.open(request, in: session) {
                switch part {
                case .response(let response):
                    let type = response.value(forHTTPHeaderField: "Content-Type") ?? ""
                    if response.statusCode == 200, type.lowercased().hasPrefix("text/event-stream") {
                        failures = 0
                    } else {
                        refused = (response, Data())
                    }
                case .data(let data):
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
        } catch OverlayClientError.unreachable(let reason) {
            // Silent from the first byte to the timeout, although the server has just answered the
            // GET before it: something on the way holds the stream back.
            if reason == HTTPExchange.timedOut, parser.bytesReceived == 0, refused == nil,
                client.configuration.transport == .automatic
            {
                mode = .longPoll
                return
            }
            throw OverlayClientError.unreachable(reason)
        }
        if let refused {
            let error = OverlayClient.refusal(refused.response, refused.body)
            if Self.isStreamingUnsupported(refused.response), client.configuration.transport == .automatic {
                mode = .longPoll
                return
            }
            throw error
        }
        throw OverlayClientError.unreachable("the event stream ended")
    }

    /// An answer to `/events` that says streaming will not work here, where long-poll may.
    private static func isStreamingUnsupported(_ response: HTTPURLResponse) -> Bool {
        (200..<300).contains(response.statusCode) || [404, 405, 406, 501].contains(response.statusCode)
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
            if let last { request.setValue("W/\"\(last.version)\"", forHTTPHeaderField: "If-None-Match") }
            let (response, data) = try await HTTPExchange.perform(request, in: session)
            switch response.statusCode {
            case 304:
                failures = 0
            case 200:
                failures = 0
                offer(try OverlayClient.decode(response, data), afterReconnection: true)
            default:
                throw OverlayClient.refusal(response, data)
            }
        }
    }
}
