import MicroHTTP
import OverlayEngine

/// `POST /overlay/hold`, `/overlay/release` and `/overlay/dismiss`: what a person's finger does to
/// the overlay, sent by whoever mirrors it (docs/BEHAVIOUR.md, "Touch").
struct TouchHandlers: Sendable {
    let channels: ChannelRegistry
    let encoder: OverlayEncoder

    /// The finger is down: answers the overlay with its `touch`. A channel that does not exist
    /// shows nothing, and is not created by the refusal.
    func hold(_ parameters: RouteParameters) throws(APIError) -> Routed {
        guard let channel = channels.existing(parameters.channel) else { throw APIError(EngineError.nothingShown) }
        let (result, sequence) = channel.write { engine, now in
            engine.hold(at: now).map { held in held.map { _ in engine.overlay(at: now) } }
        }
        return .durable(encoder.response(try result.get(orThrow: APIError.init)), sequence: sequence)
    }

    /// The finger is lifted: answers the overlay. Without a hold (or a channel) nothing changes.
    func release(_ parameters: RouteParameters) throws(APIError) -> Routed {
        guard let channel = channels.existing(parameters.channel) else {
            return .response(
                encoder.response(channels.read(parameters.channel) { engine, now in engine.overlay(at: now) }))
        }
        let (overlay, sequence) = channel.write { engine, now in
            engine.release(at: now).map { _ in engine.overlay(at: now) }
        }
        return .durable(encoder.response(overlay), sequence: sequence)
    }

    /// Swiped away: answers the message, ended as `dismissed`, as a DELETE answers it.
    func dismiss(_ parameters: RouteParameters) throws(APIError) -> Routed {
        guard let channel = channels.existing(parameters.channel) else { throw APIError(EngineError.nothingShown) }
        let (result, sequence) = channel.write { engine, now in engine.dismiss(at: now) }
        let message = try result.get(orThrow: APIError.init)
        return .durable(HTTPResponse.json(200) { $0.message(message) }, sequence: sequence)
    }
}
