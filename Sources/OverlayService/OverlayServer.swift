import MicroHTTP
import Platform

#if canImport(Glibc)
    import Glibc
#endif

/// overlayd running: the service behind libmicrohttpd, with its access log. `main` and the live
/// tests build it the same way.
public final class OverlayServer: Sendable {
    public let service: OverlayService
    let http: HTTPServer

    /// The port the server listens on (the real one when configured with port 0).
    public var port: Int { http.port }

    public init(configuration: ServiceConfiguration) throws {
        let service = try OverlayService(configuration: configuration)
        var options = HTTPServerOptions()
        options.host = configuration.host
        options.port = configuration.port
        options.threads = configuration.threads
        options.maxBodyBytes = configuration.maxBodyBytes
        options.connectionLimit = configuration.connectionLimit
        options.connectionTimeout = configuration.connectionTimeout
        options.connectionsPerClient = configuration.connectionsPerClient
        options.connectionMemoryLimit = configuration.connectionMemoryBytes
        options.streamSendBufferBytes = configuration.streamSendBufferBytes
        options.sendBufferBytes = configuration.sendBufferBytes
        options.recordsAddresses = configuration.accessLog != .off
        options.responseHeaders = service.guardian.crossOrigin.responseHeaders
        options.originHeaders = service.guardian.crossOrigin.originHeaders
        options.refusals = { APIError($0).response }
        options.headCheck = WebhookHandlers.headCheck(
            bodyBytes: configuration.webhookBodyBytes, signs: configuration.githubSecret != nil)
        var log: HTTPServer.AccessObserver?
        switch configuration.accessLog {
        case .off: break
        case .text: log = { @Sendable record in AccessLog.write(record) }
        case .json: log = { @Sendable record in AccessLog.writeJSON(record) }
        }
        let metrics = service.metrics
        do {
            http = try HTTPServer(
                options: options,
                handler: { request, responder in service.handle(request, responder) },
                responseCounts: metrics.responses, durations: metrics.durations,
                observer: log, streams: service.streams)
        } catch {
            service.shutdown()
            throw error
        }
        self.service = service
        sweepDisconnected()
    }

    /// Once a second, readers whose clients have gone are let go (see `HTTPServer.reapDisconnected`),
    /// then the channels only they had asked for (see `ChannelRegistry.releaseUnread`), and the
    /// channels idle for `channelIdleSeconds` (see `ChannelRegistry.retireIdle`).
    private func sweepDisconnected() {
        service.scheduler.schedule(.sweep, at: MonotonicClock.nanoseconds() + 1_000_000_000) { [self] in
            http.reapDisconnected()
            service.channels.releaseUnread()
            if service.configuration.channelIdleSeconds > 0 {
                service.channels.retireIdle(
                    after: Int64(service.configuration.channelIdleSeconds * 1e9), now: MonotonicClock.nanoseconds())
            }
            sweepDisconnected()
        }
    }

    /// Stops gracefully (MODEL §7): no new connections, and no new request on an open one (503);
    /// waiting readers are answered 503 and event streams end; requests in flight finish and
    /// every write among them is committed and answered (up to `grace` seconds); then the
    /// connections close, the timers stop and the store closes.
    public func stop(grace: Double = 5) {
        let deadline = MonotonicClock.nanoseconds() + Int64(grace * 1e9)
        http.beginDraining()
        service.releaseReaders()
        http.waitUntilIdle(grace: Double(max(0, deadline - MonotonicClock.nanoseconds())) / 1e9)
        service.flush()
        http.stop(grace: Double(max(0, deadline - MonotonicClock.nanoseconds())) / 1e9)
        service.shutdown()
    }
}

/// Writes to file descriptor 2 (Glibc's `stderr` global is not concurrency-safe in Swift 6).
public enum Diagnostics {
    public static func write(_ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { Glibc.write(2, $0.baseAddress! + offset, $0.count - offset) }
            if written < 0 && errno == EINTR { continue }
            if written <= 0 { return }
            offset += written
        }
    }
}
