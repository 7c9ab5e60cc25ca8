import OverlayEngine
import OverlayPublisher

/// The publisher of `configuration.publish`: every new overlay version, as the JSON `GET /overlay`
/// answers with, POSTed through libcurl (docs/SCALING.md says why libcurl).
enum OverlayPublishing {
    static func make(_ configuration: ServiceConfiguration, encoder: OverlayEncoder) -> Publisher<OverlaySnapshot>? {
        guard let template = configuration.publish else { return nil }
        var settings = PublisherConfiguration(urlTemplate: template)
        settings.queueDepth = configuration.publishQueue
        guard let transport = CurlTransport(timeout: settings.timeout, connectTimeout: settings.connectTimeout) else {
            // libcurl fails to make a handle only when memory runs out; say so rather than stop.
            Diagnostics.write("overlayd: publishing is off: libcurl could not be set up\n")
            return nil
        }
        return Publisher(
            configuration: settings, transport: transport, encode: { encoder.body($0) },
            log: { Diagnostics.write($0) })
    }
}
