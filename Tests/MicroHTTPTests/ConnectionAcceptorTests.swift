import Platform
import Synchronization
import TestSupport
import Testing

@testable import MicroHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// The server's own listening socket: connections it accepts are served by libmicrohttpd's pool,
/// and once it stops accepting a new connection is refused while open ones go on.
@Suite("Connection acceptor")
struct ConnectionAcceptorTests {
    static func server(threads: Int = 2) throws -> HTTPServer {
        var options = HTTPServerOptions()
        options.port = 0
        options.threads = threads
        options.connectionTimeout = 10
        return try HTTPServer.serving(options) { request, responder in
            responder.respond(HTTPResponse(status: 200, body: Array(request.path.utf8)))
        }
    }

    /// Requests on connections the acceptor took are answered, on both pool threads' share.
    @Test func acceptedConnectionsAreServed() throws {
        let server = try Self.server()
        defer { server.stop(grace: 0) }
        #expect(server.port > 0)
        for round in 0..<8 {
            let client = try RawClient(port: server.port)
            try client.send("GET /\(round) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            let answer = String(decoding: client.receive(), as: UTF8.self)
            #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
            #expect(answer.hasSuffix("/\(round)"))
        }
    }

    /// After `stopAccepting` a connection is refused (the socket is closed, not left to a backlog
    /// nobody reads), and a connection opened before goes on being served.
    @Test func stoppingRefusesNewConnectionsOnly() throws {
        let server = try Self.server()
        defer { server.stop(grace: 0) }
        let open = try RawClient(port: server.port)
        try open.send("GET /first HTTP/1.1\r\nHost: x\r\n\r\n")
        let first = try open.readResponse()
        #expect(first.status == 200 && first.text == "/first")
        server.stopAccepting()
        server.stopAccepting()
        // Refused, or (when another test's server was given the freed port, or a child being
        // spawned still holds a copy of the listener) at least not served by this server.
        // A connection left in a backlog nobody reads would stay open in silence.
        if let late = try? RawClient(port: server.port, timeoutSeconds: 10) {
            let path = "/late-\(UInt64.random(in: 0...UInt64.max))"
            try? late.send("GET \(path) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(!String(decoding: late.receive(), as: UTF8.self).hasSuffix(path))
            #expect(late.isClosed(), "left open in a backlog nobody reads")
        }
        try open.send("GET /second HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
        let answer = String(decoding: open.receive(), as: UTF8.self)
        #expect(answer.hasPrefix("HTTP/1.1 200"), "\(answer)")
        #expect(answer.hasSuffix("/second"))
    }

    /// Stopping while both pool threads are busy with connections coming and going: libmicrohttpd
    /// never sees a listening socket, so nothing races over removing it from their epoll sets
    /// (with the daemon's own listening socket, `MHD_quiesce_daemon` could abort the process here).
    /// Each round stops once requests are being answered, every exchange ends in a whole answer
    /// or a refused or closed connection, never a cut or wrong one, and the stop returns.
    @Test func stoppingUnderLoad() throws {
        for round in 0..<300 {
            let server = try Self.server()
            let port = server.port
            let going = Atomic(true)
            let answered = Atomic(0)
            let wrong = Atomic(0)
            onThreads(5) { thread in
                if thread == 0 {
                    // The load is on once answers come back: stop in the middle of it.
                    _ = eventually { answered.load(ordering: .acquiring) >= 4 }
                    server.stopAccepting()
                    going.store(false, ordering: .releasing)
                    return
                }
                while going.load(ordering: .acquiring) {
                    guard let client = try? RawClient(port: port, timeoutSeconds: 2) else { continue }
                    try? client.send("GET /load HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
                    let answer = String(decoding: client.receive(), as: UTF8.self)
                    if answer.hasPrefix("HTTP/1.1 200") && answer.hasSuffix("/load") {
                        answered.add(1, ordering: .releasing)
                    } else if !answer.isEmpty {
                        wrong.add(1, ordering: .relaxed)
                    }
                }
            }
            server.stop(grace: 0)
            #expect(answered.load(ordering: .acquiring) >= 4, "round \(round): stopped before the load was on")
            #expect(wrong.load(ordering: .relaxed) == 0, "round \(round): an answer cut or wrong")
        }
    }
}

/// The connection limit, kept by the acceptor.
@Suite("Connection limit")
struct ConnectionLimitTests {
    /// Connections past the limit are closed at once; once one closes, a new one is served; and
    /// the server still stops. (libmicrohttpd at its own limit would leave a pool thread's lock
    /// held, and the stop would wait for that thread forever.)
    @Test func pastTheLimitIsClosedAndTheServerStillStops() throws {
        var options = HTTPServerOptions()
        options.port = 0
        options.threads = 2
        options.connectionLimit = 2
        options.connectionTimeout = 10
        // A body no other test's server sends, to tell this server's answers from theirs.
        let marker = "served by pastTheLimit \(UInt64.random(in: 0...UInt64.max))"
        let server = try HTTPServer.serving(options) { _, responder in
            responder.respond(HTTPResponse(status: 200, body: Array(marker.utf8)))
        }
        var open: [RawClient] = []
        for _ in 0..<2 {
            let client = try RawClient(port: server.port)
            try client.send("GET /a HTTP/1.1\r\nHost: x\r\n\r\n")
            let answer = try client.readResponse()
            #expect(answer.status == 200 && answer.text == marker)
            open.append(client)
        }
        for _ in 0..<5 {
            let refused = try RawClient(port: server.port, timeoutSeconds: 10)
            try? refused.send("GET /b HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(refused.receive().isEmpty)
        }
        open.removeFirst()
        var served = false
        for _ in 0..<500 where !served {
            guard let client = try? RawClient(port: server.port) else { continue }
            try? client.send("GET /c HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            served = String(decoding: client.receive(), as: UTF8.self).hasPrefix("HTTP/1.1 200")
        }
        #expect(served)
        server.stop(grace: 0)
        // Stopped, it serves nothing. The connection itself may still succeed: another test's
        // server may have been given the freed port, or a child another test is spawning holds a
        // copy of the listener until its exec closes it.
        if let late = try? RawClient(port: server.port, timeoutSeconds: 10) {
            try? late.send("GET /d HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n")
            #expect(!String(decoding: late.receive(), as: UTF8.self).contains(marker))
            #expect(late.isClosed(), "left open in a backlog nobody reads")
        }
    }
}
