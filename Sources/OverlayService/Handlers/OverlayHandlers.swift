import MicroHTTP
import OverlayEngine

/// `/overlay` and `/events`: the overlay now, a long-poll for its next version, or a stream of them.
struct OverlayHandlers: Sendable {
    /// The longest a long-poll may wait, in seconds.
    static let maximumWait = 60.0

    let channels: ChannelRegistry
    let encoder: OverlayEncoder

    /// `GET /overlay`: 304 while `If-None-Match` (or `?since=`) names the current version; with
    /// `?wait=N` the request is held until the version changes or N seconds pass.
    func overlay(_ request: HTTPRequest, _ parameters: RouteParameters) throws(APIError) -> Routed {
        let name = parameters.channel
        let condition = request.header("If-None-Match").map(EntityTagCondition.init)
        let query = try FieldReader(query: request)
        let since = try query.read(ReadFields.since) ?? condition?.firstVersion
        let wait = try query.read(ReadFields.wait) ?? 0
        // Only a long-poll that has to wait needs the channel (and creates it); one whose version
        // differs is a read, answered below, and a read creates nothing. Should the version move
        // between this look and the wait, the wait answers at once.
        if wait > 0, let since, since == channels.read(name, { engine, _ in engine.version }) {
            let existed = channels.existing(name) != nil
            let channel = try channels.obtainForReading(name)
            // A channel that did not exist read as a new one (version 0); the one just made is
            // that same state under its first version (about 10^15 on the real clock), and a
            // wait on it from the version read must not answer at once for the number alone.
            return .wait(channel, since: existed ? since : channel.firstVersion, seconds: wait)
        }
        // The common conditional GET names one version: the channel answers it from the
        // version's template, under its lock, without encoding the overlay again.
        var single: UInt64? = nil
        if case .version(let version)? = condition { single = version }
        if let channel = channels.existing(name), condition == nil || single != nil {
            return .response(channel.overlayResponse(unlessVersion: single ?? since))
        }
        let overlay = channels.read(name) { engine, now in engine.overlay(at: now) }
        if condition?.matches(overlay.version) == true || since == overlay.version {
            return .response(encoder.notModified(version: overlay.version))
        }
        return .response(encoder.response(overlay))
    }

    /// `GET /events`: Server-Sent Events from the channel (`/events?channel=name` is
    /// `/channels/name/events`).
    func events(_ request: HTTPRequest, _ parameters: RouteParameters) throws(APIError) -> Routed {
        let query = try FieldReader(query: request)
        var name = parameters.channel
        if !parameters.prefixed, let named = try query.read(ReadFields.channel) { name = named }
        // The header, as EventSource sends it on reconnecting, else the query (for clients that
        // cannot set headers).
        // The query's refusals name the header: it is the header's stand-in.
        var lastEventID = try query.value("lastEventId").flatMap { (value) throws(APIError) in
            try ReadFields.lastEventID.read(value)
        }
        if let header = request.header("Last-Event-ID"), let version = try ReadFields.lastEventID.read(.text(header)) {
            lastEventID = version
        }
        return .events(try channels.obtainForReading(name), lastEventID: lastEventID)
    }
}

/// The query parameters of the reads that wait: `GET /overlay` and `GET /events`.
package enum ReadFields {
    static let since = Field<UInt64>.whole("since", expected: "a version number")
    /// 0 would hold nothing: a wait is in (0, 60].
    package static let wait = Field.number("wait", expected: "a number of seconds").checked { seconds in
        seconds > 0 && seconds <= OverlayHandlers.maximumWait
            ? nil : "must be more than 0 and at most \(Int(OverlayHandlers.maximumWait)) seconds"
    }
    /// `/events?channel=` (only unprefixed): the channel to follow.
    static let channel = Field<String>("channel") { (value) throws(FieldProblem) in
        let name = try value.string()
        guard Name.isValid(name) else { throw FieldProblem(.malformed, Router.channelNameRule) }
        return name
    }
    static func versionOrNone(_ name: String) -> Field<UInt64?> {
        Field(name) { (value) throws(FieldProblem) in
            if case .text(let bytes) = value, String(decoding: bytes, as: UTF8.self).trimmingSpaces().isEmpty {
                return nil
            }
            return try value.whole(UInt64.self, expected: "a version number")
        }
    }

    /// A version, or none when empty (EventSource sends an empty id for "none seen"): the header,
    /// and the query's `lastEventId` for clients that cannot set headers.
    static let lastEventID = HeaderField(versionOrNone("Last-Event-ID"))
}

/// A field read from a header rather than the query: its refusals name the header.
struct HeaderField<Value>: Sendable {
    let field: Field<Value>

    init(_ field: Field<Value>) { self.field = field }

    func read(_ value: FieldValue) throws(APIError) -> Value {
        do throws(FieldProblem) {
            return try field.read(value)
        } catch {
            throw error.apiError(field: field.name)
        }
    }
}
