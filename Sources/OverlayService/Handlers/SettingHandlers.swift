import MicroHTTP
import OverlayEngine

/// `PUT /orientation`, `PUT /device` and `PUT /presentation`: one named value of the channel's screen, set by name.
struct SettingHandlers: Sendable {
    let channels: ChannelRegistry
    let encoder: OverlayEncoder
    let devices: [String: DeviceProfile]
    /// A value of the channel's screen that a PUT sets by name, in a field of that name.
    enum Setting: String, Sendable {
        case orientation
        case device
        case presentation

        /// The names it accepts, for the error that lists them.
        func names(_ devices: [String: DeviceProfile]) -> [String] {
            switch self {
            case .orientation: Orientation.allCases.map(\.rawValue)
            case .device: devices.keys.sorted()
            case .presentation: Presentation.allCases.map(\.rawValue)
            }
        }

        /// The engine event for `name`, or nil if no such value exists.
        func change(
            to name: String, _ devices: [String: DeviceProfile]
        ) -> (@Sendable (inout OverlayEngine, Instant) -> Applied<Bool>)? {
            switch self {
            case .orientation:
                guard let orientation = Orientation(rawValue: name) else { return nil }
                return { engine, now in engine.changeOrientation(to: orientation, at: now) }
            case .device:
                guard let profile = devices[name] else { return nil }
                return { engine, now in engine.changeDevice(to: profile, at: now) }
            case .presentation:
                guard let presentation = Presentation(rawValue: name) else { return nil }
                return { engine, now in engine.changePresentation(to: presentation, at: now) }
            }
        }
    }

    /// Sets `setting` from the body (`{"orientation": "landscapeLeft"}`, or the bare name as
    /// text) or the query, and answers with the overlay. A name that does not exist is refused
    /// before the channel is looked at: bad input creates nothing.
    func put(
        _ setting: Setting, _ request: HTTPRequest, _ parameters: RouteParameters
    ) throws(APIError) -> Routed {
        let field = setting.rawValue
        let fields = FieldSet<String?>(text: field, [FieldRule(Field.string(field)) { $0 = $1 }])
        var given: String? = nil
        try FieldReader(request, fields).read(fields, into: &given)
        guard let text = given else { throw .invalidField(field, "is required") }
        guard let change = setting.change(to: text.trimmingSpaces(), devices) else {
            throw .invalidField(field, "must be one of \(setting.names(devices).joined(separator: ", "))")
        }
        let (overlay, sequence) = try channels.write(parameters.channel, refusal: { _ in nil }) { engine, now in
            change(&engine, now).map { _ in engine.overlay(at: now) }
        }
        return .durable(encoder.response(overlay), sequence: sequence)
    }
}
