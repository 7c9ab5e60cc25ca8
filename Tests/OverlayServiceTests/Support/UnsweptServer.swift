import MicroHTTP
import ServiceTestSupport
import TestSupport

@testable import OverlayService

/// overlayd's service behind libmicrohttpd as `OverlayServer` puts it, but without the
/// once-a-second sweep of readers whose clients left: for the tests of the other ways such a
/// reader is found (a heartbeat, a change), which the sweep would otherwise race. It needs
/// MicroHTTP's server, which only this target's tests use, so it lives here.
final class UnsweptServer: Sendable {
    let service: OverlayService
    let http: HTTPServer
    var port: Int { http.port }

    init(configure: (inout ServiceConfiguration) -> Void = { _ in }) throws {
        var configuration = ServiceConfiguration.testing()
        configure(&configuration)
        let service = try OverlayService(configuration: configuration)
        var options = HTTPServerOptions()
        options.port = 0
        options.threads = configuration.threads
        do {
            http = try HTTPServer(
                options: options, handler: { request, responder in service.handle(request, responder) },
                streams: service.streams)
        } catch {
            service.shutdown()
            throw error
        }
        self.service = service
    }

    /// Stops as `OverlayServer.stop` does.
    func stop() {
        http.beginDraining()
        service.releaseReaders()
        http.stop(grace: 1)
        service.shutdown()
    }

    /// `overlayd_event_streams` of the default channel.
    func eventStreams() throws -> Int? {
        try MetricSamples.scrape(port: port).count("overlayd_event_streams", channel: "default")
    }
}

/// Runs `body` with an `UnsweptServer` and stops it when `body` returns or throws.
func withUnsweptServer<Result>(
    configure: (inout ServiceConfiguration) -> Void = { _ in }, _ body: (UnsweptServer) throws -> Result
) throws -> Result {
    let live = try UnsweptServer(configure: configure)
    defer { live.stop() }
    return try body(live)
}
