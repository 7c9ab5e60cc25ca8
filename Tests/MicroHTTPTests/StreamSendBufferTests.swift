import Platform
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
        return try HTTPServer(options: options) { _, responder in
            responder.stream(headers: [])?.send(flood, limit: 16 << 20)
        }
    }

    /// The bytes waiting in the send queue of each of the server's established connections on
    /// `port` (`tx_queue` in /proc/net/tcp), once they have stopped growing.
    static func sendQueues(port: Int, count: Int) -> [Int] {
        var last: [Int] = []
        var stableSince = MonotonicClock.nanoseconds()
        let deadline = MonotonicClock.nanoseconds() + 5_000_000_000
        while MonotonicClock.nanoseconds() < deadline {
            let now = readSendQueues(port: port)
            if now != last {
                last = now
                stableSince = MonotonicClock.nanoseconds()
            } else if now.count == count && MonotonicClock.nanoseconds() - stableSince > 300_000_000 {
                break
            }
            usleep(50_000)
        }
        return last
    }

    private static func readSendQueues(port: Int) -> [Int] {
        guard let file = fopen("/proc/net/tcp", "r") else { return [] }
        defer { fclose(file) }
        // The port as /proc/net/tcp writes it: four upper-case hex digits.
        let digits = String(port, radix: 16, uppercase: true)
        let local = String(repeating: "0", count: max(0, 4 - digits.count)) + digits
        var queues: [Int] = []
        var line = [CChar](repeating: 0, count: 512)
        while fgets(&line, Int32(line.count), file) != nil {
            let fields = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                .split(separator: " ")
            // sl local_address rem_address st tx_queue:rx_queue …; 01 is ESTABLISHED.
            guard fields.count > 4, fields[1].hasSuffix(":" + local), fields[3] == "01" else { continue }
            let transmit = fields[4].split(separator: ":")[0]
            queues.append(Int(transmit, radix: 16) ?? 0)
        }
        return queues.sorted()
    }

    /// 24 streams whose clients never read: with a 64 KiB cap each pins about that much; without
    /// it, TCP's own sizing lets them grow far past it.
    @Test func slowReadersPinBoundedKernelMemory() throws {
        let cap = 64 * 1024
        var pinned: [Bool: [Int]] = [:]
        for capped in [true, false] {
            let server = try Self.flooding(sendBufferBytes: capped ? cap : 0)
            defer { server.stop(grace: 0) }
            var clients: [RawClient] = []
            for _ in 0..<24 {
                let client = try RawClient(port: server.port)
                var receive: Int32 = 4096
                setsockopt(client.socket, SOL_SOCKET, SO_RCVBUF, &receive, socklen_t(MemoryLayout<Int32>.size))
                try client.send("GET /events HTTP/1.1\r\nHost: x\r\n\r\n")
                clients.append(client)
            }
            pinned[capped] = Self.sendQueues(port: server.port, count: 24)
            clients.removeAll()
        }
        let cappedQueues = pinned[true] ?? []
        print("send queues, capped: \(cappedQueues.map { $0 >> 10 }) KiB")
        print("send queues, uncapped: \((pinned[false] ?? []).map { $0 >> 10 }) KiB")
        #expect(cappedQueues.count == 24)
        #expect(cappedQueues.allSatisfy { $0 <= cap + 16 * 1024 }, "\(cappedQueues)")
        #expect(cappedQueues.reduce(0, +) > 0, "nothing was sent: the measurement saw no queue")
        // The contrast shows the measurement can fail: TCP's own sizing (tcp_wmem) goes further.
        let uncapped = pinned[false] ?? []
        #expect((uncapped.max() ?? 0) > 4 * cap, "\(uncapped)")
    }
}
