import Platform
import Synchronization
import Testing

@testable import MicroHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// After a fan-out (many suspended requests answered at once), the waiters' next requests must be
/// served even when libmicrohttpd 0.9.75's epoll loop leaves them unread: here 128 of them arrive
/// together while the one pool thread is busy, the batch size after which that loop waits again
/// before serving anything.
@Suite("Event loop stall")
struct EventLoopStallTests {
    /// A one-thread server: `/wait` is held until `releaseAll`, `/block` holds the thread for
    /// 300 ms, anything else is answered at once.
    final class Server: Sendable {
        /// The responders of the held `/wait` requests.
        final class Held: Sendable {
            let responders = Mutex<[HTTPResponder]>([])
        }

        let http: HTTPServer
        let held = Held()

        init(watching: Bool) throws {
            var options = HTTPServerOptions()
            options.port = 0
            options.threads = 1
            options.connectionTimeout = 20
            options.watchesResumedConnections = watching
            let held = self.held
            http = try HTTPServer(options: options) { [held] request, responder in
                switch request.path {
                case "/wait": held.responders.withLock { $0.append(responder) }
                case "/block":
                    usleep(300_000)
                    responder.respond(HTTPResponse(status: 200, body: Array("ok".utf8)))
                default: responder.respond(HTTPResponse(status: 200, body: Array("ok".utf8)))
                }
            }
        }

        func releaseAll() {
            let released = held.responders.withLock { held in
                defer { held = [] }
                return held
            }
            for responder in released {
                responder.respond(HTTPResponse(status: 200, body: Array("released".utf8)))
            }
        }

        deinit {
            http.stop(grace: 0)
        }
    }

    /// Waits until every client has `count` answers' worth of bytes containing `marker`, or the
    /// time is up; returns how many did.
    static func answered(_ clients: [RawClient], containing marker: String, within seconds: Double) -> Int {
        var waiting = clients.map { pollfd(fd: $0.socket, events: Int16(POLLIN), revents: 0) }
        var answered = 0
        let deadline = MonotonicClock.nanoseconds() + Int64(seconds * 1e9)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !waiting.isEmpty && MonotonicClock.nanoseconds() < deadline {
            guard poll(&waiting, nfds_t(waiting.count), 50) > 0 else { continue }
            var still: [pollfd] = []
            for entry in waiting {
                let count =
                    entry.revents & Int16(POLLIN) != 0
                    ? buffer.withUnsafeMutableBytes { recv(entry.fd, $0.baseAddress, $0.count, 0) } : 0
                if count > 0, String(decoding: buffer[..<count], as: UTF8.self).contains(marker) {
                    answered += 1
                } else {
                    still.append(pollfd(fd: entry.fd, events: Int16(POLLIN), revents: 0))
                }
            }
            waiting = still
        }
        return answered
    }

    /// 128 waiters released at once, then their next requests, arriving together while the
    /// thread is busy: how many of those are answered within 2 s.
    static func nextRequestsAnswered(watching: Bool) throws -> Int {
        let server = try Server(watching: watching)
        let blocker = try RawClient(port: server.http.port)
        let clients = try (0..<128).map { _ in try RawClient(port: server.http.port) }
        for client in clients { try client.send("GET /wait HTTP/1.1\r\nHost: x\r\n\r\n") }
        let start = MonotonicClock.nanoseconds()
        while server.held.responders.withLock({ $0.count }) < 128
            && MonotonicClock.nanoseconds() - start < 5_000_000_000
        {
            usleep(10_000)
        }
        server.releaseAll()
        #expect(answered(clients, containing: "released", within: 5) == 128)
        try blocker.send("GET /block HTTP/1.1\r\nHost: x\r\n\r\n")
        usleep(100_000)
        for client in clients { try client.send("GET /next HTTP/1.1\r\nHost: x\r\n\r\n") }
        return answered(clients, containing: "ok", within: 2)
    }

    /// With the watch, every next request is served.
    @Test func nextRequestsAfterFanOutAreServed() throws {
        #expect(try Self.nextRequestsAnswered(watching: true) == 128)
    }

    /// Without it, on the libmicrohttpd that has the bug, none is (until the idle timeout): the
    /// test above would fail without the watch.
    @Test(.enabled(if: HTTPServer.libraryVersion == "0.9.75")) func nextRequestsStallWithoutTheWatch() throws {
        #expect(try Self.nextRequestsAnswered(watching: false) == 0)
    }
}
