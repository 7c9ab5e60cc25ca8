import MicroHTTP
import OverlayEngine

/// `/statusbar` and `/statusbar/controllers`: the app's own status bar under the overlay, set
/// directly or decided by a controller hierarchy, depending on `statusBar.appearance`.
struct StatusBarHandlers: Sendable {
    let channels: ChannelRegistry
    let encoder: OverlayEncoder
    let configuration: StatusBarConfiguration

    /// `GET /statusbar`: the bar now, the appearance mode, the animation its next change of hidden
    /// uses, and the hierarchy last sent. A channel that does not exist shows a new one's bar.
    func get(_ request: HTTPRequest, _ parameters: RouteParameters) -> HTTPResponse {
        let (bar, snapshot, version, now) = channels.read(parameters.channel) { engine, now in
            (engine.statusBar, engine.statusBarSnapshot(at: now), engine.version, now)
        }
        if let unchanged = HTTPResponse.notModified(request, version: version) { return unchanged }
        return HTTPResponse.json(200, headers: [.json] + OverlayEncoder.versionHeaders(version)) {
            $0.statusBarState(bar, snapshot, version: version, now: now)
        }
    }

    /// `PUT /statusbar`: `style`, `hidden` and `animation` from JSON or the query. A body that is
    /// wrong, or a setting the appearance mode does not take (409), is refused before the channel
    /// is looked at: bad input creates nothing.
    func put(_ request: HTTPRequest, _ parameters: RouteParameters) throws(APIError) -> Routed {
        let input = try StatusBarDecoder.input(request)
        if let refusal = configuration.refusal(of: input) { throw APIError(refusal) }
        return try answer(parameters) { engine, now in engine.setStatusBar(input, at: now) }
    }

    /// `PUT /statusbar/controllers`: the controller hierarchy, which decides the bar with
    /// `controllers` appearance (409 with `application` appearance).
    func putControllers(_ request: HTTPRequest, _ parameters: RouteParameters) throws(APIError) -> Routed {
        let hierarchy = try StatusBarDecoder.hierarchy(request)
        if let refusal = configuration.hierarchyRefusal { throw APIError(refusal) }
        return try answer(parameters) { engine, now in engine.setControllers(hierarchy, at: now) }
    }

    /// Runs a status-bar event on the channel and answers 200 with the overlay once it is stored.
    private func answer(
        _ parameters: RouteParameters,
        _ event: (inout OverlayEngine, Instant) -> Applied<Result<StatusBarEffect, StatusBarError>>
    ) throws(APIError) -> Routed {
        // Every refusal the engine could give is made before (see `put`): none to try first.
        let (result, sequence) = try channels.write(parameters.channel, refusal: { _ in nil }) { engine, now in
            event(&engine, now).map { result in result.map { _ in engine.overlay(at: now) } }
        }
        switch result {
        case .success(let overlay): return .durable(encoder.response(overlay), sequence: sequence)
        case .failure(let error): throw APIError(error)
        }
    }
}
