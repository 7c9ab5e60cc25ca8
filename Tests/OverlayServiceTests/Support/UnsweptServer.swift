import MicroHTTP
import OverlayService
import TestSupport

/// overlayd's service behind libmicrohttpd as `OverlayServer` puts it, but without the
/// once-a-second sweep of readers whose clients left: for the tests of the other ways such a
/// reader is found (a heartbeat, a change), which the sweep would otherwise race.
final class UnsweptServer: Sendable {
    let service: OverlayService
    let http: HTTPServer
    var port: Int { http.port }

    init(configure: (inout ServiceConfiguration) -> Void = { _ in }) throws {
        var configuration = ServiceConfiguration()
        configuration.port = 0
        configuration.clock = .manual
        configuration.accessLog = .off
        configuration.ephemeral = true
        configuration.writesPerSecond = 0
        configure(&configuration)
        let service = try OverlayService(configuration: configuration)
        var options = HTTPServerOptions()
        options.port = 0
        options.threads = configuration.threads
        do {
            http = try HTTPServer(options: options) { request, responder in service.handle(request, responder) }
        } catch {
            service.shutdown()
            throw error
        }
        self.service = service
    }

    deinit {
        http.beginDraining()
        service.releaseReaders()
        http.stop(grace: 1)
        service.shutdown()
    }

    /// `overlayd_event_streams` of the default channel.
    func eventStreams() throws -> Int? {
        let prefix = "overlayd_event_streams{channel=\"default\"} "
        let metrics = try RawClient.request("GET", "/metrics", port: port).text
        return metrics.split(separator: "\n").first { $0.hasPrefix(prefix) }.flatMap { Int($0.dropFirst(prefix.count)) }
    }
}
