import MicroHTTP
import OverlayEngine

/// `POST /overlay/hold`, `/overlay/release`, `/overlay/dismiss` and `/overlay/tap`: what a
/// person's finger does to the overlay, sent by whoever mirrors it (docs/BEHAVIOUR.md, "Touch").
struct TouchHandlers: Sendable {
    let channels: ChannelRegistry
    let encoder: OverlayEncoder
    let memory: MemoryAccount

    /// The action tapped: `{"action": "open"}`, a form field, or the bare id as a text body;
    /// none (or null) is a tap on the overlay itself.
    static let action = Field.string("action").nullable
    static let tapFields = FieldSet<String?>(text: "action", [FieldRule(action) { $0 = $1?.trimmingSpaces() }])

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

    /// A tap on the shown message or one of its actions (docs/MODEL.md §14): answers the message
    /// with its taps. Nothing shown is 409 `nothing_shown` (a channel that does not exist is not
    /// created by it), an action the message does not have 422 naming `action`.
    func tap(_ request: HTTPRequest, _ parameters: RouteParameters) throws(APIError) -> Routed {
        var action: String?
        try FieldReader.read(request, Self.tapFields, into: &action)
        guard let channel = channels.existing(parameters.channel) else { throw APIError(EngineError.nothingShown) }
        try memory.admit(MessageMemory.tap)
        let (result, sequence) = channel.write { engine, now in engine.tap(action: action, at: now) }
        let message = try result.get(orThrow: APIError.init)
        return .durable(HTTPResponse.json(200) { $0.message(message) }, sequence: sequence)
    }
}
