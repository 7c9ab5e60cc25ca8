import MicroHTTP
import OverlayEngine

/// `/overlay` and `/events`: the overlay now, a long-poll for its next version, or a stream of them.
extension OverlayService {
    /// The longest a long-poll may wait.
    static let maximumWait = 60.0

    /// `GET /overlay`: 304 while `If-None-Match` (or `?since=`) names the current version; with
    /// `?wait=N` the request is held until the version changes or N seconds pass.
    func getOverlay(_ request: HTTPRequest, _ parameters: RouteParameters) throws(APIError) -> Routed {
        let name = parameters.channel
        let condition = request.header("If-None-Match").map(EntityTagCondition.init)
        let since: UInt64?
        if let text = OverlayService.queryValue(request, "since") {
            guard let version = UInt64(text.trimmingSpaces()) else {
                throw .badRequest("since must be a version number, not \"\(text)\"", field: "since")
            }
            since = version
        } else {
            since = condition?.firstVersion
        }
        var wait = 0.0
        if let text = OverlayService.queryValue(request, "wait") {
            guard let seconds = Double(text.trimmingSpaces()), seconds.isFinite else {
                throw .badRequest("wait must be a number of seconds, not \"\(text)\"", field: "wait")
            }
            // 0 would hold nothing: a wait is in (0, 60].
            guard seconds > 0 && seconds <= OverlayService.maximumWait else {
                throw .invalidField(
                    "wait", "must be more than 0 and at most \(Int(OverlayService.maximumWait)) seconds")
            }
            wait = seconds
        }
        // Only a long-poll that has to wait needs the channel (and creates it); one whose version
        // differs is a read, answered below, and a read creates nothing. Should the version move
        // between this look and the wait, the wait answers at once.
        if wait > 0, let since, since == read(name, { engine, _ in engine.version }) {
            return .wait(try channels.obtainForReading(name), since: since, seconds: wait)
        }
        // The common conditional GET names one version: the channel answers it from the
        // version's template, under its lock, without encoding the overlay again.
        var single: UInt64? = nil
        if case .version(let version)? = condition { single = version }
        if let channel = channels.existing(name), condition == nil || single != nil {
            return .response(channel.overlayResponse(unlessVersion: single ?? since))
        }
        let overlay = read(name) { engine, now in engine.overlay(at: now) }
        if condition?.matches(overlay.version) == true || since == overlay.version {
            return .response(encoder.notModified(version: overlay.version))
        }
        return .response(encoder.response(overlay))
    }

    /// `GET /events`: Server-Sent Events from the channel (`/events?channel=name` is
    /// `/channels/name/events`).
    func getEvents(_ request: HTTPRequest, _ parameters: RouteParameters) throws(APIError) -> Routed {
        var name = parameters.channel
        if !parameters.prefixed, let named = OverlayService.queryValue(request, "channel") {
            guard Name.isValid(named) else { throw Router.badChannelName }
            name = named
        }
        return .events(try channels.obtainForReading(name), lastEventID: try lastEventID(request))
    }

    /// `Last-Event-ID` (what EventSource sends on reconnecting), or `?lastEventId=` for clients
    /// that cannot set headers. The header wins, but a malformed value is refused in either.
    private func lastEventID(_ request: HTTPRequest) throws(APIError) -> UInt64? {
        func version(_ text: String?) throws(APIError) -> UInt64? {
            guard let text else { return nil }
            let trimmed = text.trimmingSpaces()
            if trimmed.isEmpty { return nil }
            guard let version = UInt64(trimmed) else {
                throw .badRequest("Last-Event-ID must be a version number, not \"\(text)\"", field: "Last-Event-ID")
            }
            return version
        }
        let header = try version(request.header("Last-Event-ID"))
        let query = try version(OverlayService.queryValue(request, "lastEventId"))
        return header ?? query
    }
}
