import MicroHTTP
import OverlayEngine

/// Finds a request's route in the table, or the answer when there is none (404, 405 with
/// `Allow`, 204 to OPTIONS, `OPTIONS *` included).
struct Router: Sendable {
    /// The routes of one path pattern, with what `OPTIONS` and a 405 announce. A class, for the
    /// same reason as `Route`.
    final class Group: Sendable {
        let pattern: RoutePattern
        let scope: Route.Scope
        let routes: [Route]
        /// The methods allowed here, HEAD with GET, OPTIONS last.
        let allowed: [String]
        let allowHeader: Header
        /// Whether every route here is open, so that a wrong method is refused without a token check.
        let isOpen: Bool
        /// Where the pattern is in `Router.routeLabels`: what its requests' durations count under.
        let label: Int

        init(pattern: RoutePattern, scope: Route.Scope, routes: [Route], label: Int) {
            self.pattern = pattern
            self.scope = scope
            self.routes = routes
            self.label = label
            let order = ["GET", "POST", "PUT", "PATCH", "DELETE"]
            // Each once: the server-wide group (`OPTIONS *`) holds many routes of one method.
            var methods: [String] = []
            for route in routes where !methods.contains(route.method) { methods.append(route.method) }
            methods.sort { (order.firstIndex(of: $0) ?? 99) < (order.firstIndex(of: $1) ?? 99) }
            allowed = methods + (methods.contains("GET") ? ["HEAD"] : []) + ["OPTIONS"]
            allowHeader = Header(name: "Allow", value: allowed.joined(separator: ", "))
            isOpen = routes.allSatisfy { $0.access == .open }
        }

        /// The route for `method` (HEAD is GET).
        func route(for method: String) -> Route? {
            let method = method == "HEAD" ? "GET" : method
            return routes.first { $0.method == method }
        }
    }

    /// What the path and method came to.
    enum Resolution {
        case route(Route, RouteParameters)
        /// OPTIONS on a known path.
        case options(Group)
        /// A known path that does not allow the method.
        case methodNotAllowed(Group)
        /// Refused before any route: an unknown path, or a malformed channel name.
        case refused(APIError)
    }

    let routes: [Route]
    /// Every path pattern, in table order: the server's, then the channels'.
    private let groups: [Group]
    /// The label of each pattern's requests in the duration histogram (`RequestDurations`):
    /// `unmatched` for every request no pattern took, then each pattern as the table writes it
    /// (`/messages/{id}`, never a request's own path, so that the labels are a fixed few).
    /// A channel route counts under its unprefixed pattern, whichever channel it addresses.
    let routeLabels: [String]
    /// Unprefixed paths without parameters (`/overlay`, `/messages`, …), found without splitting.
    /// A list, not a dictionary: these paths are small strings, compared in one step each, where
    /// hashing the path would cost more than the whole scan.
    private let exact: [(path: String, group: Group)]
    /// What `OPTIONS *` announces (RFC 9110 §9.3.7): every method of the server, on any path. Its
    /// requests count as `unmatched`: `*` is no path of the table.
    private let server: Group

    init(routes: [Route]) {
        self.routes = routes
        var order: [(RoutePattern, Route.Scope)] = []
        var byPattern: [RoutePattern: [Route]] = [:]
        for scope in [Route.Scope.server, .channel] {
            for route in routes where route.scope == scope {
                if byPattern[route.pattern] == nil { order.append((route.pattern, scope)) }
                byPattern[route.pattern, default: []].append(route)
            }
        }
        groups = order.enumerated().map { index, entry in
            Group(pattern: entry.0, scope: entry.1, routes: byPattern[entry.0]!, label: index + 1)
        }
        routeLabels = [Router.unmatched] + groups.map { $0.routes[0].path }
        var exact: [(path: String, group: Group)] = []
        for group in groups where !group.pattern.hasParameters {
            let path =
                "/"
                + group.pattern.segments.map { segment -> Substring in
                    if case .literal(let literal) = segment { return literal }
                    return ""
                }.joined(separator: "/")
            if !exact.contains(where: { $0.path == path }) { exact.append((path, group)) }
        }
        self.exact = exact
        server = Group(pattern: RoutePattern("*"), scope: .server, routes: routes, label: 0)
    }

    /// The route of a request. A path under `/channels/{name}/` is a channel route of that
    /// channel: the prefix is taken off once, and what follows is matched against the channel
    /// routes alone. Any other path is matched against every route, channel routes for `default`.
    func resolve(_ request: HTTPRequest) -> Resolution {
        if let group = exact.first(where: { $0.path == request.path })?.group {
            return resolve(
                request.method, in: group,
                RouteParameters(channel: ChannelRegistry.defaultName, prefixed: false, label: group.label))
        }
        // The asterisk-form target (RFC 9112 §3.2.4) is OPTIONS' alone; with any other method it
        // names nothing, as an unknown path does. Past the exact paths: they cost it nothing.
        if request.path == "*" && request.method == "OPTIONS" { return .options(server) }
        var path = Router.segments(of: request.path)[...]
        var channel = ChannelRegistry.defaultName
        var prefixed = false
        if path.count >= 3 && path.first == "channels" {
            channel = String(path[path.startIndex + 1])
            guard Name.isValid(channel) else { return .refused(Router.badChannelName) }
            prefixed = true
            path = path.dropFirst(2)
        }
        for group in groups where !prefixed || group.scope == .channel {
            switch group.pattern.match(path) {
            case .none:
                continue
            case .badChannel:
                return .refused(Router.badChannelName)
            case .matched(let value, let named):
                let parameters = RouteParameters(
                    channel: named.map(String.init) ?? channel, prefixed: prefixed || named != nil, value: value,
                    label: group.label)
                return resolve(request.method, in: group, parameters)
            }
        }
        return .refused(.notFound("no such path: \(request.path)"))
    }

    private func resolve(_ method: String, in group: Group, _ parameters: RouteParameters) -> Resolution {
        if method == "OPTIONS" { return .options(group) }
        guard let route = group.route(for: method) else { return .methodNotAllowed(group) }
        return .route(route, parameters)
    }

    /// Every endpoint as `METHOD /path`, in table order, for the index at `GET /`: the server's
    /// routes and the channel routes unprefixed, then the note that each channel has them too.
    var endpoints: [String] {
        var list: [String] = []
        for route in routes where !(route.scope == .server && route.path == "/") {
            list.append("\(route.method) \(route.path)")
            if route.scope == .server && route.path == "/channels/{name}" && route.method == "GET" {
                list.append("/channels/{name}/…")
            }
        }
        return list
    }

    /// The route label of a request no pattern took: an unknown path, a bad channel name, or one
    /// the server refused before any routing (a body too large, a stop).
    static let unmatched = "unmatched"

    /// What a channel name must be, in a refusal's words.
    static let channelNameRule = "must be 1 to 64 of A-Z a-z 0-9 . _ -, and not . or .."
    static let badChannelName = APIError.badRequest("channel \(channelNameRule)", field: "channel")

    /// The path's segments after the leading "/", without one trailing empty segment ("/a/" is
    /// "/a"). Split on the scalar "/", not the Character: a combining mark after a slash
    /// ("/\u{301}") makes one Character of the two, which would hide the slash.
    static func segments(of path: String) -> [Substring] {
        var segments = path.unicodeScalars.split(separator: "/", omittingEmptySubsequences: false)
            .dropFirst().map(Substring.init)
        if segments.last == "" && segments.count > 1 { segments.removeLast() }
        return segments
    }
}
