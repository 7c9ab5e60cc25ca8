/// What the access log writes per request (`accessLog`): nothing, today's `key=value` line, or
/// one JSON object for log collectors that parse JSON.
public enum AccessLogFormat: String, CaseIterable, Hashable, Sendable {
    case off
    case text
    case json
}
