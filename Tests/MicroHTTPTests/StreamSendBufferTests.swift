import Platform
import TestSupport
import Testing

@testable import MicroHTTP

#if canImport(Glibc)
    import Glibc
#endif

/// The kernel's send buffer of a streamed response is capped, so that a client that never reads
/// pins a bounded number of bytes in the server's kernel too, not the megabytes TCP's own sizing
/// grows to.
@Suite("Stream send buffer")
struct StreamSendBufferTests {
    /// A server whose every request is a stream that is handed 8 MiB at once (far more than any
    /// socket holds), so that each connection's send queue fills to whatever its buffer allows.
    static func flooding(sendBufferBytes: Int) throws -> HTTPServer {
        var options = HTTPServerOptions()
        options.port = 0
        options.threads = 2
        options.streamSendBufferBytes = sendBufferBytes
        let flood = [UInt8](repeating: UInt8(ascii: "x"), count: 8 << 20)
        return try HTTPServer.serving(options) { _, responder in
            responder.stream(headers: [])?.send(flood, limit: 16 << 20)
        }
    }

    /// The bytes waiting in the send queue of each of the server's established connections on
    /// `port` to `clients` (`tx_queue` in /proc/net/tcp): only this test's connections, whatever
    /// else the suite has open meanwhile.
    static func sendQueues(port: Int, clients: [RawClient]) -> [Int] {
        let ours = Set(clients.map { Loopback.port(of: $0.socket) })
        return TCPTable().served(onPort: port, in: .established).filter { ours.contains($0.remotePort) }
            .map(\.sendQueue).sorted()
    }

    /// 24 streams whose clients never read: with a 64 KiB cap each pins about that much; without
    /// it, TCP's own sizing lets them grow far past it.
    @Test func slowReadersPinBoundedKernelMemory() throws {
        let cap = 64 * 1024
        let capped = try Self.flooding(sendBufferBytes: cap)
        defer { capped.stop(grace: 0) }
        let uncapped = try Self.flooding(sendBufferBytes: 0)
        defer { uncapped.stop(grace: 0) }
        var clients: [Int: [RawClient]] = [:]
        for server in [capped, uncapped] {
            for _ in 0..<24 {
                let client = try RawClient(port: server.port)
                var receive: Int32 = 4096
                setsockopt(client.socket, SOL_SOCKET, SO_RCVBUF, &receive, socklen_t(MemoryLayout<Int32>.size))
                try client.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
                clients[server.port, default: []].append(client)
            }
        }
        // The contrast shows the measurement can fail: TCP's own sizing (tcp_wmem) goes further.
        var grown: [Int] = []
        let grew = eventually {
            grown = Self.sendQueues(port: uncapped.port, clients: clients[uncapped.port]!)
            return grown.count == 24 && grown.allSatisfy { $0 > 4 * cap }
        }
        #expect(grew, "uncapped: \(grown)")
        // Flooded since before that, the capped streams have filled to their cap and no further.
        // Read until the table lists all 24 (a read of procfs can miss a socket).
        var cappedQueues: [Int] = []
        #expect(
            eventually {
                cappedQueues = Self.sendQueues(port: capped.port, clients: clients[capped.port]!)
                return cappedQueues.count == 24
            }, "\(cappedQueues)")
        #expect(cappedQueues.allSatisfy { $0 <= cap + 16 * 1024 }, "\(cappedQueues)")
        #expect(cappedQueues.allSatisfy { $0 > 0 }, "nothing was sent: the measurement saw no queue")
    }
}
