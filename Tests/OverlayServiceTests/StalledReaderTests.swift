import Glibc
import ServiceTestSupport
import TestSupport
import Testing

/// Readers that ask for a large page of `GET /messages` and never read it hold a bounded amount
/// of the server's memory: a page is at most `limits.maxPageBytes`, and readers of the same page
/// at one version share one copy. Measured in the real executable, whose memory is its own, with
/// the default bound (1 MiB): 1,000 of the largest messages (2.4 KB each) make three pages.
@Suite("Stalled readers")
struct StalledReaderTests {
    static let token = "stalled-reader-token"
    /// 256 characters of 4 bytes: the most a text (and a subtitle) may hold, 1,024 bytes.
    static let heavyText = String(repeating: "😀", count: 256)
    static let pageBytes = 1 << 20

    @Test func stalledReadersHoldABoundedAmount() throws {
        let directory = try TemporaryDirectory()
        let config = try directory.write(
            "config.json",
            #"{"limits": {"writesPerSecond": 0, "connectionsPerClient": 0}}"#)
        let child = try ChildProcess.overlayd(
            ["--port", "0", "--clock", "manual", "--ephemeral", "--access-log=false", "--config", config],
            environment: ["OVERLAYD_TOKEN": Self.token])
        defer { _ = child.stop() }
        let port = try #require(child.listeningPort())
        let body = #"{"text": "\#(Self.heavyText)", "subtitle": "\#(Self.heavyText)"}"#
        // 1,000 messages (the queue's limit): a whole queue is 2.4 MB, three pages of the bound.
        for _ in 0..<1000 {
            let posted = try RawClient.request(
                "POST", "/messages", port: port,
                headers: [("Content-Type", "application/json"), ("Authorization", "Bearer \(Self.token)")], body: body)
            try #require(posted.status == 202, "\(posted.text)")
        }
        // One whole read first: the allocator and the code paths are warm before measuring.
        let warm = try RawClient.request("GET", "/messages?limit=1000", port: port)
        #expect(warm.status == 200)
        #expect(warm.body.count <= Self.pageBytes)
        let before = try #require(Self.residentKB(child.pid))

        // Twenty readers of one page at one version share it: unshared, they would hold 20 MB.
        var readers: [RawClient] = []
        for _ in 0..<20 { readers.append(try Self.stalledReader(port: port, path: "/messages?limit=1000")) }
        let shared = try #require(Self.residentKB(child.pid)) - before
        #expect(shared < 6 * 1024, "20 readers of one page grew the server by \(shared) KB")

        // Twenty more, each asking for a page of its own: each holds at most about a page (without
        // the byte bound, most of the queue: 40 MB).
        for limit in 900..<920 { readers.append(try Self.stalledReader(port: port, path: "/messages?limit=\(limit)")) }
        let apart = try #require(Self.residentKB(child.pid)) - before - shared
        let bound = 20 * 2 * Self.pageBytes / 1024
        #expect(apart < bound, "20 readers of their own pages grew the server by \(apart) KB (bound \(bound) KB)")
        for reader in readers { reader.close() }
    }

    /// A connection that sent `path` and read the first bytes of the answer (so the server has
    /// built it), then reads nothing more.
    static func stalledReader(port: Int, path: String) throws -> RawClient {
        let client = try RawClient(port: port)
        try client.send("GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n\r\n")
        var head = [UInt8](repeating: 0, count: 12)
        let count = head.withUnsafeMutableBytes { recv(client.socket, $0.baseAddress, 12, Int32(MSG_WAITALL)) }
        #expect(count == 12 && RawClient.status(of: head) == 200, "\(path): \(String(decoding: head, as: UTF8.self))")
        return client
    }

    /// The process's resident set in KB, from /proc.
    static func residentKB(_ pid: pid_t) -> Int? {
        let status = TemporaryDirectory.read("/proc/\(pid)/status")
        guard let line = status.split(separator: "\n").first(where: { $0.hasPrefix("VmRSS:") }) else { return nil }
        return Int(line.split(separator: " ", omittingEmptySubsequences: true).dropFirst().first ?? "")
    }
}
