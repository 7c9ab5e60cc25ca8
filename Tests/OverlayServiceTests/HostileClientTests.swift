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
    /// Milliseconds since `start`.
    static func milliseconds(since start: Double) -> Double { (MonotonicSeconds.now() - start) * 1000 }

    /// Waits up to `seconds` for the server to close `socket`; the time it took, or nil if it
    /// stayed open. Data the server sends first (an error response) is skipped.
    static func closed(_ socket: Int32, within seconds: Double) -> Double? {
        let start = MonotonicSeconds.now()
        var buffer = [UInt8](repeating: 0, count: 4096)
        while MonotonicSeconds.now() - start < seconds {
            var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
            let ready = poll(&descriptor, 1, 50)
            guard ready > 0 else { continue }
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
            if count == 0 || (count < 0 && errno != EAGAIN && errno != EINTR) { return MonotonicSeconds.now() - start }
        }
        return nil
    }

    /// 50 slowloris connections (30 trickling a head one byte every 200 ms, 20 holding an
    /// unfinished head) while 200 ordinary requests are answered, each well within a second.
    @Test func slowlorisDoesNotStarveOthers() throws {
        let live = try LiveServer()
        let head = Array("POST /messages HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nX-Slow: ".utf8)
        var trickling: [Int32] = []
        var holding: [Int32] = []
        for _ in 0..<30 { trickling.append(try TestClient.connect(port: live.port)) }
        for _ in 0..<20 {
            let socket = try TestClient.connect(port: live.port)
            try TestClient.write(socket, Array("GET /overlay HTTP/1.1\r\nHost: x\r\nX-Never: ".utf8))
            holding.append(socket)
        }
        defer { (trickling + holding).forEach { close($0) } }

        let done = Atomic<Bool>(false)
        let sockets = trickling
        let latencies = Mutex([Double]())
        let failures = Mutex([String]())
        onThreads(2) { index in
            if index == 0 {
                // The slow clients: a byte each every 200 ms, for at least 2 s and until the
                // ordinary requests are done.
                let start = MonotonicSeconds.now()
                var offset = 0
                while !done.load(ordering: .acquiring) || MonotonicSeconds.now() - start < 2 {
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
                let start = MonotonicSeconds.now()
                let response =
                    request % 2 == 0
                    ? try? TestClient.request("GET", "/overlay", port: live.port)
                    : try? TestClient.request("POST", "/messages", port: live.port, body: "ordinary \(request)")
                let elapsed = HostileClientTests.milliseconds(since: start)
                latencies.withLock { $0.append(elapsed) }
                if response == nil || ![200, 202].contains(response!.status) {
                    failures.withLock { $0.append("request \(request): \(response?.status ?? 0)") }
                }
            }
            done.store(true, ordering: .releasing)
        }
        let sorted = latencies.withLock { $0 }.sorted()
        let median = sorted[sorted.count / 2]
        let worst = sorted.last ?? 0
        print("slowloris: 200 ordinary requests beside 50 slow connections: median \(median) ms, worst \(worst) ms")
        #expect(failures.withLock { $0 }.isEmpty, "\(failures.withLock { $0 })")
        #expect(worst < 1000, "latencies: median \(median) ms, worst \(worst) ms")
        #expect(median < 100)
        // The slow connections are still open (nothing but the idle timeout ends them) and the
        // server answered every ordinary request meanwhile.
        #expect(try live.get("/healthz").status == 200)
        #expect(try live.get("/overlay").json["queued"]?.int == 99)
    }

    /// `limits.connectionTimeout`: an idle connection, or one stuck in its head, is closed.
    @Test func idleConnectionTimesOut() throws {
        let live = try LiveServer { $0.connectionTimeout = 1 }
        let idle = try TestClient.connect(port: live.port)
        defer { close(idle) }
        let stuck = try TestClient.connect(port: live.port)
        defer { close(stuck) }
        try TestClient.write(stuck, Array("GET /overlay HTTP/1.1\r\nHost: x\r\n".utf8))
        let idleClosed = HostileClientTests.closed(idle, within: 5)
        let stuckClosed = HostileClientTests.closed(stuck, within: 5)
        let afterIdle = try #require(idleClosed, "the idle connection stayed open")
        _ = try #require(stuckClosed, "the connection with half a head stayed open")
        #expect(afterIdle > 0.5)
        #expect(afterIdle < 3.5)
        #expect(try live.get("/healthz").status == 200)

        // A connection that keeps working is not cut off in the middle of its use.
        let busy = try TestClient.connect(port: live.port)
        defer { close(busy) }
        for _ in 0..<3 {
            try TestClient.write(busy, Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            var buffer = [UInt8](repeating: 0, count: 4096)
            let count = buffer.withUnsafeMutableBytes { recv(busy, $0.baseAddress, $0.count, 0) }
            #expect(count > 0)
            #expect(String(decoding: buffer.prefix(max(0, count)), as: UTF8.self).hasPrefix("HTTP/1.1 200"))
            usleep(400_000)
        }
    }

    /// A request head bigger than `limits.connectionMemoryBytes` is refused (by libmicrohttpd, with
    /// 431, 414 or 413 depending on where the bytes are) and the server stays healthy.
    @Test(arguments: [8192, ServiceConfiguration().connectionMemoryBytes])
    func oversizedHeadRefused(memory: Int) throws {
        let live = try LiveServer { $0.connectionMemoryBytes = memory }
        let before = try live.observableState()
        let big = String(repeating: "a", count: 2 * memory)
        let heads = [
            "POST /messages HTTP/1.1\r\nHost: x\r\nX-Big: \(big)\r\nContent-Length: 2\r\n\r\nhi",
            "POST /messages?text=\(big) HTTP/1.1\r\nHost: x\r\nContent-Length: 2\r\n\r\nhi",
            "POST /messages HTTP/1.1\r\nHost: x\r\n"
                + (0..<(memory / 12)).map { "X-Many-\($0): value\r\n" }.joined() + "Content-Length: 2\r\n\r\nhi",
        ]
        for head in heads {
            let raw = try TestClient.exchange(port: live.port, send: Array(head.utf8))
            let response = try TestClient.parse(raw)
            #expect([400, 413, 414, 431].contains(response.status), "\(response.status) \(response.text)")
        }
        try live.expectUnchanged(since: before)
        // A head that fits is served as usual.
        let fits = String(repeating: "b", count: 2 * 1024)
        let ordinary = try live.request("GET", "/overlay", headers: [("X-Fits", fits)])
        #expect(ordinary.status == 200)
    }

    /// A chunked body that never stops: answered or cut off soon after it passes the limit, never
    /// read forever. Also a declared Content-Length over the limit that keeps coming.
    @Test(arguments: [true, false])
    func endlessBodyCutOff(chunked: Bool) throws {
        let live = try LiveServer()
        let before = try live.observableState()
        let socket = try TestClient.connect(port: live.port, timeoutSeconds: 5)
        defer { close(socket) }
        let head =
            chunked
            ? "POST /messages HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nTransfer-Encoding: chunked\r\n\r\n"
            : "POST /messages HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 1000000000\r\n\r\n"
        try TestClient.write(socket, Array(head.utf8))
        let piece = Array(repeating: UInt8(ascii: "a"), count: 16 * 1024)
        let chunk = chunked ? Array("4000\r\n".utf8) + piece + [13, 10] : piece
        var sent = 0
        var cutOff = false
        let start = MonotonicSeconds.now()
        while sent < 64 << 20 && MonotonicSeconds.now() - start < 10 {
            let count = chunk.withUnsafeBytes { send(socket, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) }
            if count < 0 {
                if errno == EINTR { continue }
                cutOff = true
                break
            }
            sent += count
        }
        let received = TestClient.readAll(socket)
        print("endless \(chunked ? "chunked" : "Content-Length") body: cut off after \(sent >> 10) KiB sent")
        #expect(cutOff, "still reading after \(sent >> 20) MiB")
        // The limit (16 KiB) plus 1 MiB read past it, plus what the sockets' buffers hold.
        #expect(sent < 16 << 20)
        if !received.isEmpty, let response = try? TestClient.parse(received) {
            #expect(response.status == 413)
        }
        try live.expectUnchanged(since: before)
    }

    /// Garbage instead of HTTP: refused with a 4xx or a closed connection, nothing changes.
    @Test func garbageBytes() throws {
        let live = try LiveServer.withTwoMessages { $0.connectionTimeout = 1 }
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
                "POST /messages HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\nhello\r\n0\r\n\r\n".utf8),
            Array("GET /overlay HTTP/9.9\r\nHost: x\r\n\r\n".utf8),
            Array("G\u{0}T /overlay HTTP/1.1\r\nHost: x\r\n\r\n".utf8),
            Array(repeating: UInt8(ascii: "A"), count: 100_000),
        ]
        for _ in 0..<20 { payloads.append((0..<512).map { _ in UInt8.random(in: 0...255, using: &generator) }) }
        let all = payloads
        onThreads(4) { thread in
            for (index, payload) in all.enumerated() where index % 4 == thread {
                // A head left unfinished is closed by the idle timeout (1 s here).
                let raw = (try? TestClient.exchange(port: live.port, send: payload, timeoutSeconds: 3)) ?? []
                guard !raw.isEmpty, let response = try? TestClient.parse(raw) else { continue }
                #expect((400..<600).contains(response.status), "\(response.status) for \(payload.prefix(40))")
            }
        }
        try live.expectUnchanged(since: before)
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
        let live = try LiveServer.withTwoMessages()
        let before = try live.observableState()
        let smuggled = "POST /messages HTTP/1.1\r\nHost: x\r\nContent-Length: 8\r\n\r\nsmuggled"
        let raw = try TestClient.exchange(
            port: live.port, send: Array(("POST /messages HTTP/1.1\r\nHost: x\r\n" + framing + smuggled).utf8),
            timeoutSeconds: 5)
        let response = try TestClient.parse(raw)
        expectError(response, status: 400, code: "bad_request")
        let text = String(decoding: raw, as: UTF8.self)
        #expect(text.ranges(of: "HTTP/1.1 ").count == 1, "\(text)")
        try live.expectUnchanged(since: before)
        // One length, given twice alike, is fine.
        let twice =
            "POST /messages HTTP/1.1\r\nHost: x\r\nConnection: close\r\nContent-Length: 5\r\nContent-Length: 5\r\n\r\nhello"
        let accepted = try TestClient.parse(TestClient.exchange(port: live.port, send: Array(twice.utf8)))
        #expect(accepted.status == 202)
    }

    /// Wrong tokens in bulk, from many threads, of every length: each is 401, nothing changes, the
    /// right token still works at once.
    @Test func wrongTokensInBulk() throws {
        let live = try LiveServer { $0.token = TokenTests.writeToken }
        let before = try live.observableState()
        let statuses = Mutex([Int: Int]())
        let token = TokenTests.writeToken
        onThreads(8) { thread in
            for attempt in 0..<60 {
                let length = (thread * 60 + attempt) % (token.count * 2)
                var guess = String(token.prefix(length))
                if length >= token.count { guess += String(repeating: "z", count: length - token.count + 1) }
                if guess == token { guess += "!" }
                let method = ["POST", "PATCH", "DELETE", "PUT"][attempt % 4]
                let path = method == "PUT" ? "/orientation" : method == "POST" ? "/messages" : "/messages/1"
                let status =
                    (try? TestClient.request(
                        method, path, port: live.port, headers: [("Authorization", "Bearer \(guess)")],
                        body: method == "PUT" ? "landscapeLeft" : "guess"))?.status ?? 0
                statuses.withLock { $0[status, default: 0] += 1 }
            }
        }
        #expect(statuses.withLock { $0 } == [401: 480])
        try live.expectUnchanged(since: before)
        let right = try live.request("POST", "/messages", headers: TokenTests.bearer(token), body: "the owner")
        #expect(right.status == 202)
    }

    /// `limits.connectionsPerClient` and `limits.connectionLimit`: connections past them are
    /// refused; once some close, new ones are served.
    @Test func connectionLimits() throws {
        for perClient in [true, false] {
            let live = try LiveServer {
                if perClient { $0.connectionsPerClient = 4 } else { $0.connectionLimit = 4 }
            }
            var open: [Int32] = []
            for _ in 0..<4 { open.append(try TestClient.connect(port: live.port)) }
            // The server reads each one's (empty) head so that they count before the next comes.
            usleep(100_000)
            let raw = try TestClient.exchange(
                port: live.port, send: Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".utf8), timeoutSeconds: 1)
            #expect(
                raw.isEmpty || (try? TestClient.parse(raw))?.status == 503, "\(String(decoding: raw, as: UTF8.self))")
            open.forEach { close($0) }
            var served = false
            for _ in 0..<50 where !served {
                served = (try? TestClient.request("GET", "/healthz", port: live.port))?.status == 200
                if !served { usleep(20_000) }
            }
            #expect(served, "per client: \(perClient)")
        }
    }
}
