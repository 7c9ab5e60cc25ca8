import Platform
import Synchronization
import TestSupport
import Testing

@testable import MicroHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// libmicrohttpd's epoll loop, after a full batch of 128 ready events, waits again before it
/// serves them (`EpollContinuation`, which makes that wait return at once): here 128 requests
/// arrive together while the one pool thread is busy, after a fan-out of suspended requests and
/// on connections never suspended. Without the guard, both stall until something else happens on
/// the server (seen in nearly every run).
@Suite("Event loop stall")
struct EventLoopStallTests {
    /// A one-thread server: `/wait` is held until `releaseAll`, `/block` holds the thread until
    /// `unblocked`, anything else is answered at once.
    final class Server: Sendable {
        /// The responders of the held requests, and the state of `/block`.
        final class Held: Sendable {
            let responders = Lock<[HTTPResponder]>([])
            let blocking = Atomic<Bool>(false)
            let unblocked = Atomic<Bool>(false)
        }

        let http: HTTPServer
        let held = Held()

        init() throws {
            var options = HTTPServerOptions()
            options.port = 0
            options.threads = 1
            options.connectionTimeout = 60
            let held = self.held
            http = try HTTPServer.serving(options) { [held] request, responder in
                switch request.path {
                case "/wait": held.responders.withLock { $0.append(responder) }
                case "/block":
                    held.blocking.store(true, ordering: .releasing)
                    while !held.unblocked.load(ordering: .acquiring) { usleep(1_000) }
                    responder.respond(HTTPResponse(status: 200, body: Array("unblocked".utf8)))
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
            held.unblocked.store(true, ordering: .releasing)
            http.stop(grace: 0)
        }
    }

    /// Reads every client until it has an answer containing `marker` or the server closes it, for
    /// up to `seconds`; returns how many had the answer.
    static func answered(_ clients: [RawClient], containing marker: String, within seconds: Double = patience) -> Int {
        var waiting = clients.map { pollfd(fd: $0.socket, events: Int16(POLLIN), revents: 0) }
        var answered = 0
        let deadline = Deadline(after: seconds)
        var buffer = [UInt8](repeating: 0, count: 4096)
        while !waiting.isEmpty && !deadline.hasPassed {
            guard poll(&waiting, nfds_t(waiting.count), min(50, deadline.remainingMilliseconds)) > 0 else { continue }
            var still: [pollfd] = []
            for entry in waiting {
                guard entry.revents != 0 else {
                    still.append(pollfd(fd: entry.fd, events: Int16(POLLIN), revents: 0))
                    continue
                }
                let count = buffer.withUnsafeMutableBytes { recv(entry.fd, $0.baseAddress, $0.count, 0) }
                if count > 0, String(decoding: buffer[..<count], as: UTF8.self).contains(marker) {
                    answered += 1
                } else if count > 0 {
                    still.append(pollfd(fd: entry.fd, events: Int16(POLLIN), revents: 0))
                }
            }
            waiting = still
        }
        return answered
    }

    /// Waits until the loop has handled everything left (a fan-out's answers, say): a request on a
    /// new connection is then answered after it. One that comes in a batch of 128 waits for the
    /// next event; the next such request is one.
    static func settle(_ server: Server, keeping connections: inout [RawClient]) throws {
        var unanswered: [RawClient] = []
        let deadline = Deadline(after: patience)
        repeat {
            let sync = try RawClient(port: server.http.port)
            connections.append(sync)
            try sync.send("GET /sync HTTP/1.1\r\nHost: x\r\n\r\n")
            unanswered.append(sync)
            // A poll's worth of waiting for each (its pace, not its bound: it loops until all are).
            unanswered = unanswered.filter { Loopback.read($0.socket, milliseconds: 100)?.isEmpty != false }
        } while !unanswered.isEmpty && !deadline.hasPassed
        #expect(unanswered.isEmpty, "the loop never settled")
    }

    /// Holds the one pool thread on `/block` until the kernel holds a next request from every
    /// client, then lets it go: the thread's next wait finds exactly those 128 ready.
    static func sendWhileBusy(_ server: Server, from clients: [RawClient], keeping kept: inout [RawClient]) throws {
        let blocker = try RawClient(port: server.http.port)
        kept.append(blocker)
        try blocker.send("GET /block HTTP/1.1\r\nHost: x\r\n\r\n")
        #expect(eventually { server.held.blocking.load(ordering: .acquiring) })
        for client in clients { try client.send("GET /next HTTP/1.1\r\nHost: x\r\n\r\n") }
        #expect(
            eventually {
                TCPTable().served(onPort: server.http.port, in: .established).filter { $0.receiveQueue > 0 }.count
                    >= clients.count
            })
        server.held.unblocked.store(true, ordering: .releasing)
    }

    /// 128 waiters released at once, then their next requests, all in the server's receive
    /// queues before its one thread is free again: every one is served.
    @Test func nextRequestsAfterFanOutAreServed() throws {
        let server = try Server()
        let clients = try (0..<128).map { _ in try RawClient(port: server.http.port) }
        var connections: [RawClient] = []
        // Held a quarter at a time, so that the requests themselves never make a batch of 128.
        for (index, client) in clients.enumerated() {
            try client.send("GET /wait HTTP/1.1\r\nHost: x\r\n\r\n")
            if (index + 1) % 32 == 0 {
                #expect(eventually { server.held.responders.withLock { $0.count } == index + 1 })
            }
        }
        server.releaseAll()
        #expect(Self.answered(clients, containing: "released") == 128)
        try Self.settle(server, keeping: &connections)
        try Self.sendWhileBusy(server, from: clients, keeping: &connections)
        #expect(Self.answered(clients, containing: "ok") == 128)
    }

    /// The same on 128 kept-alive connections whose requests were answered at once.
    @Test func nextRequestsOnConnectionsNeverSuspendedAreServed() throws {
        let server = try Server()
        let clients = try (0..<128).map { _ in try RawClient(port: server.http.port) }
        var connections: [RawClient] = []
        for quarter in stride(from: 0, to: 128, by: 32) {
            let batch = Array(clients[quarter..<quarter + 32])
            for client in batch { try client.send("GET /first HTTP/1.1\r\nHost: x\r\n\r\n") }
            #expect(Self.answered(batch, containing: "ok") == 32)
        }
        try Self.settle(server, keeping: &connections)
        try Self.sendWhileBusy(server, from: clients, keeping: &connections)
        #expect(Self.answered(clients, containing: "ok") == 128)
    }
}
