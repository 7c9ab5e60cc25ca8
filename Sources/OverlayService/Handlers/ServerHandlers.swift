import MicroHTTP
import OverlayEngine
import OverlayPublisher

/// What the server says about itself: the index, liveness, metrics and the API description.
struct ServerHandlers: Sendable {
    let clock: ClockMode
    let endpoints: [String]
    let channels: ChannelRegistry
    let metrics: Metrics
    let authFailures: AuthFailureCounts
    let memory: MemoryAccount
    let publisher: Publisher<OverlaySnapshot>?

    func index() -> HTTPResponse {
        HTTPResponse.json(200, headers: [.json, .noStore]) {
            $0.beginObject()
            $0.key("name")
            $0.string("overlayd")
            $0.key("version")
            $0.string(OverlayService.version)
            $0.key("clock")
            $0.string(clock.rawValue)
            $0.key("endpoints")
            $0.beginArray()
            for endpoint in endpoints { $0.string(endpoint) }
            $0.endArray()
            $0.endObject()
        }
    }

    func health() -> HTTPResponse {
        HTTPResponse.json(200, headers: [.json, .noStore]) {
            $0.beginObject()
            $0.key("status")
            $0.string("ok")
            $0.endObject()
        }
    }

    func metricsText() -> HTTPResponse {
        let overlays = channels.all.compactMap { channel in
            (try? channel.withEngine { engine, now in engine.overlay(at: now) }).map { (channel, $0) }
        }
        let text = metrics.render(
            channels: overlays.map {
                (name: $0.0.name, overlay: $0.1, subscribers: $0.0.subscriberCount, waiters: $0.0.waiterCount)
            }, publishing: publisher?.statistics, authFailures: authFailures.values,
            memory: (memory.bytes, memory.limit))
        return HTTPResponse(
            status: 200,
            headers: [Header(name: "Content-Type", value: "text/plain; version=0.0.4; charset=utf-8"), .noStore],
            body: Array(text.utf8))
    }

    /// The description is built into the executable: its tag is its hash, the same for a run
    /// (as the preview page's).
    static let openAPIAnswer = StaticAnswer(
        body: PackageResources.openapi_yaml, contentType: "application/yaml; charset=utf-8")

    func openAPI(_ request: HTTPRequest) -> HTTPResponse { ServerHandlers.openAPIAnswer.response(to: request) }
}
