import Platform
import ServiceTestSupport
import Synchronization
import TestSupport
import Testing

@testable import OverlayService

#if canImport(Glibc)
    import Glibc
#endif

/// Clients that do not play by the rules (MODEL §5: nothing a client sends may crash the process
/// or corrupt the queue): slow heads, idle connections, oversized heads, endless bodies, garbage,
/// floods of wrong tokens, too many connections. The server stays healthy and its state intact.
@Suite("Hostile clients")
struct HostileClientTests {
    /// 50 slowloris connections (30 trickling a head one byte every 200 ms, 20 holding an
    /// unfinished head) while 200 ordinary requests are answered, all of them while the slow
    /// connections are still open. (How fast, `bench/latency` measures.)
    @Test func slowlorisDoesNotStarveOthers() throws {
        // Only a real failure would hold the 200 requests as long as this idle timeout.
        try withLiveServer(configure: { $0.connectionTimeout = 3600 }) { live in
            let head = Array("POST /messages HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nX-Slow: ".utf8)
            var trickling: [Int32] = []
            var holding: [Int32] = []
            for _ in 0..<30 { trickling.append(try Loopback.connect(port: live.port)) }
            for _ in 0..<20 {
                let socket = try Loopback.connect(port: live.port)
                try Loopback.write(socket, Array("GET /overlay HTTP/1.1\r\nHost: x\r\nX-Never: ".utf8))
                holding.append(socket)
            }
            defer { (trickling + holding).forEach { close($0) } }

            let done = Atomic<Bool>(false)
            let sockets = trickling
            let failures = Lock([String]())
            onThreads(2) { index in
                if index == 0 {
                    // The slow clients: a byte each every 200 ms (their pace, not a wait for anything)
                    // until the ordinary requests are done.
                    var offset = 0
                    while !done.load(ordering: .acquiring) {
                        let byte = offset < head.count ? head[offset] : UInt8(ascii: "a")
                        for socket in sockets {
                            _ = [byte].withUnsafeBytes { send(socket, $0.baseAddress, 1, Int32(MSG_NOSIGNAL)) }
                        }
                        offset += 1
                        usleep(200_000)
                    }
                    return
                }
                for request in 0..<200 {
                    let response =
                        request % 2 == 0
                        ? try? RawClient.request("GET", "/overlay", port: live.port)
                        : try? RawClient.request("POST", "/messages", port: live.port, body: "ordinary \(request)")
                    if response == nil || ![200, 202].contains(response!.status) {
                        failures.withLock { $0.append("request \(request): \(response?.status ?? 0)") }
                    }
                }
                done.store(true, ordering: .releasing)
            }
            #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
            // The slow connections are still open (nothing but the idle timeout ends them): the
            // ordinary requests were answered beside them, not after them.
            #expect((trickling + holding).allSatisfy { !Loopback.isClosed($0) })
            #expect(try live.get("/healthz").status == 200)
            #expect(try live.get("/overlay").json["queued"]?.int == 99)
        }
    }

    /// `limits.connectionTimeout`: an idle connection, or one stuck in its head, is closed; one
    /// opened with it that keeps working is not cut off in the middle of its use.
    @Test func idleConnectionTimesOut() throws {
        try withLiveServer(configure: { $0.connectionTimeout = 10 }) { live in
            // The busy one first: were its time not renewed by its requests, it would be cut off
            // before the idle one.
            let busy = try RawClient(port: live.port)
            let idle = try RawClient(port: live.port)
            let stuck = try RawClient(port: live.port)
            try stuck.send("GET /overlay HTTP/1.1\r\nHost: x\r\n")
            // Request after request on the busy one until the idle one is closed.
            var served = 0
            let deadline = Deadline(after: patience)
            while !idle.isClosed() && !deadline.hasPassed {
                try busy.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                let response = try busy.readResponse()
                #expect(response.status == 200)
                served += 1
                // A request every 50 ms: the busy client's pace, far inside the idle timeout.
                usleep(50_000)
            }
            #expect(idle.isClosed(), "the idle connection stayed open")
            #expect(served > 0, "the idle connection was closed at once")
            #expect(stuck.isClosed(within: patience), "the connection with half a head stayed open")
            try busy.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try busy.readResponse().status == 200)
            #expect(try live.get("/healthz").status == 200)
        }
    }

    /// A request head bigger than `limits.connectionMemoryBytes` is refused (by libmicrohttpd, with
    /// 431, 414 or 413 depending on where the bytes are) and the server stays healthy.
    @Test(arguments: [8192, ServiceConfiguration().connectionMemoryBytes])
    func oversizedHeadRefused(memory: Int) throws {
        try withLiveServer(configure: { $0.connectionMemoryBytes = memory }) { live in
            let before = try live.observableState()
            let big = String(repeating: "a", count: 2 * memory)
            let heads = [
                "POST /messages HTTP/1.1\r\nHost: x\r\nX-Big: \(big)\r\nContent-Length: 2\r\n\r\nhi",
                "POST /messages?text=\(big) HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi",
                "POST /messages HTTP/1.1\r\nHost: x\r\n"
                    + (0..<(memory / 12)).map { "X-Many-\($0): value\r\n" }.joined() + "Content-Length: 2\r\n\r\nhi",
            ]
            for head in heads {
                let raw = try RawClient.exchange(port: live.port, send: Array(head.utf8))
                let response = try HTTPReply.parse(raw)
                #expect([400, 413, 414, 431].contains(response.status), "\(response.status) \(response.text)")
            }
            try live.expectUnchanged(since: before)
            // A head that fits is served as usual.
            let fits = String(repeating: "b", count: 2 * 1024)
            let ordinary = try live.request("GET", "/overlay", headers: [("X-Fits", fits)])
            #expect(ordinary.status == 200)
        }
    }

    /// A chunked body that never stops: answered or cut off soon after it passes the limit, never
    /// read forever. Also a declared Content-Length over the limit that keeps coming.
    @Test(arguments: [true, false])
    func endlessBodyCutOff(chunked: Bool) throws {
        try withLiveServer { live in
            let before = try live.observableState()
            let socket = try Loopback.connect(port: live.port)
            defer { close(socket) }
            let head =
                chunked
                ? "POST /messages HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n"
                : "POST /messages HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 1000000000\r\n\r\n"
            try Loopback.write(socket, Array(head.utf8))
            let piece = Array(repeating: UInt8(ascii: "a"), count: 16 * 1024)
            let chunk = chunked ? Array("4000\r\n".utf8) + piece + [13, 10] : piece
            var sent = 0
            var cutOff = false
            while sent < 64 << 20 {
                let count = chunk.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
                if count < 0 {
                    if errno == EINTR { continue }
                    cutOff = true
                    break
                }
                sent += count
            }
            let received = Loopback.readAll(socket)
            #expect(cutOff, "still reading after \(sent >> 20) MiB")
            // The limit (16 KiB) plus 1 MiB read past it, plus what the sockets' buffers hold.
            #expect(sent < 16 << 20)
            if !received.isEmpty, let response = try? HTTPReply.parse(received) {
                #expect(response.status == 413)
            }
            try live.expectUnchanged(since: before)
        }
    }

    /// Garbage instead of HTTP: refused with a 4xx or a closed connection, nothing changes.
    @Test func garbageBytes() throws {
        try withLiveServer(started: LiveServer.startedWithTwoMessages { $0.connectionTimeout = 1 }) { live in
            let before = try live.observableState()
            var generator = SystemRandomNumberGenerator()
            var payloads: [[UInt8]] = [
                (0..<4096).map { _ in UInt8.random(in: 0...255, using: &generator) },
                [0, 0, 0, 0, 0, 0, 0, 0, 13, 10, 13, 10],
                Array("PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n".utf8),
                [0x16, 0x03, 0x01, 0x02, 0x00, 0x01, 0x00, 0x01, 0xFC, 0x03, 0x03] + Array(repeating: 0x41, count: 64),
                Array("GET\r\n\r\n".utf8),
                Array("POST /messages HTTP/1.1\r\nContent-Length: -5\r\n\r\nhello".utf8),
                Array(
                    "POST /messages HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n"
                        .utf8),
                Array("GET /overlay HTTP/9.9\r\nHost: x\r\n\r\n".utf8),
                Array("G\u{0}T /overlay HTTP/1.1\r\nHost: x\r\n\r\n".utf8),
                Array(repeating: UInt8(ascii: "A"), count: 100_000),
            ]
            for _ in 0..<20 { payloads.append((0..<512).map { _ in UInt8.random(in: 0...255, using: &generator) }) }
            let all = payloads
            onThreads(4) { thread in
                for (index, payload) in all.enumerated() where index % 4 == thread {
                    // A head left unfinished is closed by the idle timeout (1 s here).
                    let raw = (try? RawClient.exchange(port: live.port, send: payload)) ?? []
                    guard !raw.isEmpty, let response = try? HTTPReply.parse(raw) else { continue }
                    #expect((400..<600).contains(response.status), "\(response.status) for \(payload.prefix(40))")
                }
            }
            try live.expectUnchanged(since: before)
        }
    }

    /// A body with two lengths (Content-Length twice, differently; or Content-Length beside
    /// Transfer-Encoding) is refused with 400 and the connection closed: whatever follows is not
    /// read as another request, so a proxy in front that delimits the body differently cannot
    /// smuggle one in (RFC 9112 §6.3).
    @Test(arguments: [
        "Content-Length: 5\r\nContent-Length: 40\r\n\r\nhello",
        "Content-Length: 40\r\nContent-Length: 5\r\n\r\nhello",
        "Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
        "Transfer-Encoding: chunked\r\nContent-Length: 10\r\n\r\n5\r\nhello\r\n0\r\n\r\n",
    ])
    func ambiguousBodyLengthRefused(framing: String) throws {
        try withLiveServer(started: LiveServer.startedWithTwoMessages()) { live in
            let before = try live.observableState()
            let smuggled = "POST /messages HTTP/1.1\r\nHost: x\r\nContent-Length: 8\r\n\r\nsmuggled"
            let raw = try RawClient.exchange(
                port: live.port, send: Array(("POST /messages HTTP/1.1\r\nHost: x\r\n" + framing + smuggled).utf8))
            let response = try HTTPReply.parse(raw)
            expectError(response, status: 400, code: "bad_request")
            let text = String(decoding: raw, as: UTF8.self)
            #expect(text.ranges(of: "HTTP/1.1 ").count == 1, "\(text)")
            try live.expectUnchanged(since: before)
            // One length, given twice alike, is fine.
            let twice =
                "POST /messages HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello"
            let accepted = try HTTPReply.parse(RawClient.exchange(port: live.port, send: Array(twice.utf8)))
            #expect(accepted.status == 202)
        }
    }

    /// Wrong tokens in bulk, from many threads, of every length: each is 401, nothing changes, the
    /// right token still works at once.
    @Test func wrongTokensInBulk() throws {
        try withLiveServer(configure: { $0.token = Credential.write }) { live in
            let before = try live.observableState()
            let statuses = Lock([Int: Int]())
            let token = Credential.write
            onThreads(8) { thread in
                for attempt in 0..<60 {
                    let length = (thread * 60 + attempt) % (token.count * 2)
                    var guess = String(token.prefix(length))
                    if length >= token.count { guess += String(repeating: "z", count: length - token.count + 1) }
                    if guess == token { guess += "!" }
                    let method = ["POST", "PATCH", "DELETE", "PUT"][attempt % 4]
                    let path = method == "PUT" ? "/orientation" : method == "POST" ? "/messages" : "/messages/1"
                    let status =
                        (try? RawClient.request(
                            method, path, port: live.port, headers: [("Authorization", "Bearer \(guess)")],
                            body: method == "PUT" ? "landscapeLeft" : "guess"))?.status ?? 0
                    statuses.withLock { $0[status, default: 0] += 1 }
                }
            }
            #expect(statuses.withLock { $0 } == [401: 480])
            try live.expectUnchanged(since: before)
            let right = try live.request(
                "POST", "/messages", headers: Credential.authorization(token), body: "the owner")
            #expect(right.status == 202)
        }
    }

    /// `limits.connectionsPerClient` and `limits.connectionLimit`: connections past them are
    /// refused (closed unanswered, or 503), or past the whole server's limit possibly left
    /// unaccepted in the kernel's queue while the server serves the others; once some close, new
    /// ones are served.
    @Test(arguments: [true, false])
    func connectionLimits(perClient: Bool) throws {
        try withLiveServer(
            started: LiveServer {
                if perClient { $0.connectionsPerClient = 4 } else { $0.connectionLimit = 4 }
            }
        ) { live in
            let open = try (0..<4).map { _ in try RawClient(port: live.port) }
            // The server has taken all four (a connection still in the kernel's queue has no inode
            // yet), so that they count before the next comes.
            #expect(
                eventually {
                    TCPTable().served(onPort: live.port, in: .established).filter { $0.inode != 0 }.count == 4
                })
            let fifth = try RawClient(port: live.port)
            try fifth.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
            if perClient {
                let raw = fifth.receive()
                #expect(fifth.isClosed(), "the fifth connection stayed open")
                #expect(
                    raw.isEmpty || (try? HTTPReply.parse(raw))?.status == 503, "\(String(decoding: raw, as: UTF8.self))"
                )
            } else {
                // Each of the four is served after the fifth has come, and the fifth is not then:
                // it still waits to be accepted, or it was closed unanswered.
                for client in open {
                    try client.send("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n")
                    #expect(try client.readResponse().status == 200)
                }
                let local = Loopback.port(of: fifth.socket)
                // Three reads: one read of procfs can miss a socket that others list.
                let waiting = (0..<3).flatMap { _ in
                    TCPTable().served(onPort: live.port, in: .established).filter { $0.remotePort == local }
                }
                if waiting.isEmpty {
                    let raw = fifth.receive()
                    #expect(fifth.isClosed(), "the fifth connection was taken and kept")
                    #expect(
                        raw.isEmpty || (try? HTTPReply.parse(raw))?.status == 503,
                        "\(String(decoding: raw, as: UTF8.self))")
                } else {
                    #expect(waiting.allSatisfy { $0.inode == 0 }, "the fifth was taken: \(waiting)")
                }
            }
            open.forEach { $0.close() }
            let served = eventually { (try? RawClient.request("GET", "/healthz", port: live.port))?.status == 200 }
            #expect(served)
        }
    }
}
