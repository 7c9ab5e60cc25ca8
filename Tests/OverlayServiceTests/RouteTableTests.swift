import MicroHTTP
import ServiceTestSupport
import Testing

@testable import OverlayService

/// The route table and the router built from it, without sockets: every row is reachable in both
/// spellings of a channel, each path announces exactly its rows' methods, and each row's access
/// decides the token check.
@Suite("Route table")
struct RouteTableTests {
    static let router = Router(routes: OverlayService.routes)

    static func resolve(_ method: String, _ path: String) -> Router.Resolution {
        router.resolve(HTTPRequest(method: method, path: path))
    }

    /// The concrete paths at which a row answers: its own, and for a channel row the same path
    /// under `/channels/{name}`. A server row's `{name}` names the channel it is about.
    static func paths(of route: Route) -> [(path: String, channel: String, prefixed: Bool)] {
        let own = route.path.replacing("{id}", with: "7").replacing("{name}", with: "blue")
        guard route.scope == .channel else {
            return route.path.contains("{name}") ? [(own, "blue", true)] : [(own, "default", false)]
        }
        return [(own, "default", false), ("/channels/blue" + own, "blue", true)]
    }

    /// Each row is what the router finds for its method and path, with the channel and the
    /// parameter the path names; HEAD finds the GET row.
    @Test func everyRowResolvesToItself() {
        #expect(OverlayService.routes.count >= 17)
        for route in OverlayService.routes {
            for (path, channel, prefixed) in Self.paths(of: route) {
                for method in route.method == "GET" ? ["GET", "HEAD"] : [route.method] {
                    guard case .route(let found, let parameters) = Self.resolve(method, path) else {
                        Issue.record("\(method) \(path) does not resolve to a route")
                        continue
                    }
                    #expect(found.method == route.method && found.path == route.path, "\(method) \(path)")
                    #expect(parameters.channel == channel && parameters.prefixed == prefixed, "\(method) \(path)")
                    if route.path.contains("{id}") { #expect(parameters.value == "7") }
                }
            }
        }
    }

    /// No two rows share a method and a path: a second row would never be reached.
    @Test func noRowIsShadowed() {
        let keys = OverlayService.routes.map { "\($0.method) \($0.scope) \($0.path)" }
        #expect(Set(keys).count == keys.count)
    }

    /// OPTIONS and a wrong method on a path announce the methods of exactly the rows on that
    /// path, in one order, with HEAD beside GET and OPTIONS last.
    @Test func allowListsTheRowsOfThePath() {
        for route in OverlayService.routes {
            let rows = OverlayService.routes.filter { $0.path == route.path && $0.scope == route.scope }
            var expected = ["GET", "POST", "PUT", "PATCH", "DELETE"].filter { method in
                rows.contains { $0.method == method }
            }
            if expected.contains("GET") { expected.append("HEAD") }
            expected.append("OPTIONS")
            for (path, _, _) in Self.paths(of: route) {
                guard case .options(let group) = Self.resolve("OPTIONS", path) else {
                    Issue.record("OPTIONS \(path) is not answered")
                    continue
                }
                #expect(group.allowed == expected, "\(path)")
                #expect(group.allowHeader.value == expected.joined(separator: ", "))
                guard case .methodNotAllowed(let refused) = Self.resolve("BREW", path) else {
                    Issue.record("BREW \(path) is not a 405")
                    continue
                }
                #expect(refused.allowed == expected)
            }
        }
    }

    /// Paths outside the table, and malformed channel names, are refused before any handler.
    @Test(arguments: [
        ("/nope", 404), ("/channels/blue/nope", 404), ("/channels/blue/channels", 404), ("/messages/1/2", 404),
        ("/channels/bad!name/overlay", 400), ("/channels/bad!name", 400), ("/channels//overlay", 400),
        ("/channels/\(String(repeating: "a", count: 65))/overlay", 400), ("/healthz/x", 404),
    ])
    func refusals(path: String, status: Int) {
        guard case .refused(let error) = Self.resolve("GET", path) else {
            Issue.record("GET \(path) resolved")
            return
        }
        #expect(error.status == status)
    }

    /// The index at `GET /` is the table: every row but the index itself, in table order, and
    /// the note that channels have the channel rows too.
    @Test func indexIsTheTable() throws {
        let service = try OverlayService.testing()
        let listed = service.answer(HTTPRequest("GET", "/")).json["endpoints"]?.array?
            .compactMap(\.string)
        var expected = OverlayService.routes.filter { $0.path != "/" }.map { "\($0.method) \($0.path)" }
        expected.insert("/channels/{name}/…", at: expected.firstIndex(of: "GET /channels/{name}")! + 1)
        #expect(listed == expected)
    }

    /// With both tokens configured, each row asks for the token its access names: writes the
    /// write token, reads either token, open rows none; unknown paths and wrong methods are
    /// checked as their method implies (so a 404 or 405 tells nothing to a client without one).
    @Test func accessDecidesTheTokenCheck() throws {
        let service = try OverlayService.testing {
            $0.token = "write-secret"
            $0.readToken = "read-secret"
        }
        func status(_ method: String, _ path: String, token: String?) -> Int {
            let headers = token.map { [Header(name: "Authorization", value: "Bearer \($0)")] } ?? []
            return service.answer(HTTPRequest(method, path, headers: headers)).status
        }
        for route in OverlayService.routes {
            for (path, _, _) in Self.paths(of: route) {
                let none = status(route.method, path, token: nil)
                let read = status(route.method, path, token: "read-secret")
                let write = status(route.method, path, token: "write-secret")
                let at = "\(route.method) \(path)"
                switch route.access {
                case .open, .anyone:
                    #expect(none != 401 && read != 401 && write != 401, "\(at)")
                case .read, .readEverything, .readSome, .subrequest:
                    #expect(none == 401 && ![401, 403].contains(read) && ![401, 403].contains(write), "\(at)")
                case .write, .writeEverything, .admin:
                    #expect(none == 401 && read == 403 && ![401, 403].contains(write), "\(at)")
                }
            }
        }
        #expect(status("GET", "/nope", token: nil) == 401)
        #expect(status("GET", "/nope", token: "read-secret") == 404)
        #expect(status("PUT", "/messages", token: "read-secret") == 403)
        #expect(status("PUT", "/messages", token: "write-secret") == 405)
        #expect(status("POST", "/healthz", token: nil) == 405, "a path whose rows are all open stays open")
        #expect(status("OPTIONS", "/messages", token: nil) == 204)
    }
}

/// The channel registry's two pools, without sockets.
@Suite("Channel registry")
struct ChannelRegistryTests {
    /// A channel only a reader asked for is provisional: outside the writers' limit, made a full
    /// channel by its first write, and let go by the sweep while nobody reads it (once let go it
    /// takes no reader; a new one of the same name is made on the next request).
    @Test func provisionalChannels() throws {
        let service = try OverlayService.testing { $0.maxChannels = 2 }
        let registry = service.channels
        let watched = try registry.obtainForReading("watched")
        #expect(registry.existing("watched") === watched)
        #expect(try registry.obtain("written") !== watched, "default and written fill the writers' limit")
        #expect(throws: APIError.self) { try registry.obtain("third") }
        #expect(try registry.obtainForReading("other") !== watched)
        #expect(throws: APIError.self) { try registry.obtainForReading("one-too-many") }
        #expect(registry.releaseUnread() == 2)
        #expect(registry.existing("watched") == nil && registry.existing("other") == nil)
        #expect(registry.existing("written") != nil && registry.existing("default") != nil)
        #expect(watched.retireIfUnread(), "a let-go channel stays retired")
        let again = try registry.obtainForReading("watched")
        #expect(again !== watched)
        #expect(registry.releaseUnread() == 1)
        #expect(registry.releaseUnread() == 0)
    }

    /// A channel the sweep lets go leaves nothing in the scheduler: the order of its deadlines'
    /// handovers goes with it, so channels made by readers and let go take no room there.
    @Test func aReleasedChannelIsForgottenByTheScheduler() throws {
        let service = try OverlayService.testing()
        let before = service.scheduler.orderedKeys
        let waiting = DetachedAnswer.handle(
            HTTPRequest(
                method: "GET", path: "/channels/passing/overlay",
                query: [
                    QueryItem(name: "wait", value: "30"), QueryItem(name: "since", value: "0"),
                ]), service.handle)
        #expect(waiting.current == nil, "the long-poll waits")
        #expect(service.scheduler.orderedKeys > before)
        service.releaseReaders()
        #expect(service.channels.releaseUnread() == 1)
        #expect(service.scheduler.orderedKeys == before)
    }
}
