import MicroHTTP
import OverlayEngine

/// One row of the route table: a method on a path pattern, who may call it, and its handler.
///
/// The table (`OverlayService.routes`) is the one place an endpoint is declared: routing, the
/// `Allow` header and `OPTIONS`, 405s, the index at `GET /`, the token check and the OpenAPI
/// consistency test all read it. Adding an endpoint is one row and one handler.
///
/// A class: the router hands a row to every request, and a reference is one retain where a copy
/// of the struct would retain each of its strings and its handler.
final class Route: Sendable {
    /// What a principal needs to call the route (docs/ACCESS.md).
    enum Access: Sendable, Equatable {
        /// Anyone, with no credential checked (liveness probes, the preview page, the description).
        case open
        /// Any principal, anonymous included; a credential presented must be valid (`/whoami`).
        case anyone
        /// Read on the route's channel.
        case read
        /// Write on the route's channel; counts against the write rate.
        case write
        /// Read on every channel: what shows them all at once (`/metrics`, the index).
        case readEverything
        /// Write on every channel: what changes them all at once (the manual clock).
        case writeEverything
        /// A credential, or an anonymous principal that may read somewhere: answers that each
        /// principal sees only its share of (`GET /channels`).
        case readSome
        /// An admin token (token management).
        case admin
        /// Read on the channel of another request, which the handler names and checks (`GET
        /// /auth`, nginx's question about a subscriber): the guard checks only the host.
        case subrequest

    }

    /// Where the path lives.
    enum Scope: Sendable, Equatable {
        /// Once for the whole server.
        case server
        /// Once per channel: unprefixed for `default`, and under `/channels/{name}`.
        case channel
    }

    typealias Handler = @Sendable (OverlayService, HTTPRequest, RouteParameters) throws(APIError) -> Routed

    let method: String
    /// The path with `{parameter}` segments, e.g. `/messages/{id}` (unprefixed for channel routes).
    let path: String
    let scope: Scope
    let access: Access
    let handler: Handler

    init(_ method: String, _ path: String, _ scope: Scope, _ access: Access, _ handler: @escaping Handler) {
        self.method = method
        self.path = path
        self.scope = scope
        self.access = access
        self.handler = handler
    }

    /// The path's segments after the leading "/", as `RoutePattern` matches them.
    var pattern: RoutePattern { RoutePattern(path) }
}

/// A path pattern: literal segments, `{name}` (a channel's name) and any other `{parameter}`,
/// matched segment by segment.
struct RoutePattern: Hashable, Sendable {
    enum Segment: Hashable, Sendable {
        case literal(Substring)
        /// `{name}`: a channel, whose name must be a valid one.
        case channel
        case parameter
    }

    /// What a path came to against the pattern.
    enum Match {
        case none
        /// The path names a channel with a name no channel may have.
        case badChannel
        /// The `{parameter}` segment's value and the `{name}` segment's, if the pattern has them.
        case matched(value: Substring?, channel: Substring?)
    }

    let segments: [Segment]

    init(_ path: String) {
        segments = Router.segments(of: path).map { segment in
            switch segment {
            case "{name}": .channel
            case _ where segment.hasPrefix("{") && segment.hasSuffix("}"): .parameter
            default: .literal(segment)
            }
        }
    }

    var hasParameters: Bool {
        segments.contains { segment in
            if case .literal = segment { return false }
            return true
        }
    }

    func match(_ path: ArraySlice<Substring>) -> Match {
        guard path.count == segments.count else { return .none }
        var value: Substring?
        var channel: Substring?
        for (segment, actual) in zip(segments, path) {
            switch segment {
            case .literal(let literal): guard literal == actual else { return .none }
            case .parameter: value = actual
            case .channel: channel = actual
            }
        }
        if let channel, !Name.isValid(String(channel)) { return .badChannel }
        return .matched(value: value, channel: channel)
    }
}

/// What the router found in the path for a handler.
struct RouteParameters: Sendable {
    /// The channel the request addresses (`default` for unprefixed channel paths).
    var channel: String
    /// Whether the channel was named by `/channels/{name}` rather than implied.
    var prefixed: Bool
    /// The path's `{id}`, unparsed.
    var value: Substring?
    /// The matched pattern's place in `Router.routeLabels` (set as the parameters are made: a
    /// copy to set it afterwards would retain the strings).
    var label = 0
    /// Who made the request, once its access is checked.
    var principal: Principal?

    /// How this request spelled the channel, for `Location` headers.
    var prefix: String { prefixed ? "/channels/\(channel)" : "" }
}

/// What a handler asks the server to do: answer now, or hold a reader.
enum Routed {
    case response(HTTPResponse)
    /// A write's answer, to send once the store holds `sequence` (at once without a store).
    case durable(HTTPResponse, sequence: UInt64?)
    /// Long-poll: answer once the version differs from `since`, or 304 after `seconds`.
    case wait(Channel, since: UInt64, seconds: Double)
    /// Server-Sent Events from the channel.
    case events(Channel, lastEventID: UInt64?)
}
