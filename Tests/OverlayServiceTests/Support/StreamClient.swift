import TestSupport

@testable import OverlayService

#if canImport(Glibc)
    import Glibc
#endif

// Clients for requests that stay open: an event stream read piece by piece, and a long-poll whose
// answer comes later. `TestClient` reads until the server closes, which these never do on time.

/// One block of an event stream: the lines between two blank lines, without the blank line.
struct StreamBlock: CustomStringConvertible {
    /// The block exactly as sent, lines joined by `\n`.
    var raw: String

    /// The value of the first `name:` line (one space after the colon dropped, as EventSource does).
    func field(_ name: String) -> String? {
        for line in raw.split(separator: "\n", omittingEmptySubsequences: false) {
            guard line.hasPrefix(name + ":") else { continue }
            let value = line.dropFirst(name.count + 1)
            return String(value.first == " " ? value.dropFirst() : value)
        }
        return nil
    }

    var event: String? { field("event") }
    var id: String? { field("id") }
    var data: String? { field("data") }
    /// The `id:` as a version.
    var version: Int? { id.flatMap { Int($0) } }
    /// A comment block (`: heartbeat`).
    var isComment: Bool { raw.hasPrefix(":") }
    var json: JSONValue { data.flatMap { try? JSONParser.parse(Array($0.utf8)) } ?? .null }

    var description: String { raw.count > 120 ? String(raw.prefix(120)) + "…" : raw }
}

/// A raw-socket HTTP/1.1 client for one request whose answer is read incrementally: the head when
/// it arrives, then a chunked body decoded as it comes and split into event-stream blocks. Every
/// read has a deadline, so a test never hangs on a server that stalls. One thread at a time uses it.
final class StreamClient: @unchecked Sendable {
    let socket: Int32
    private(set) var status = 0
    private(set) var headers: [(name: String, value: String)] = []
    private(set) var hasHead = false
    /// The server ended the body (the last chunk) or closed the connection.
    private(set) var ended = false
    /// The server closed the connection.
    private(set) var closed = false
    /// A violation of the chunked framing, if one was seen.
    private(set) var framingError: String?
    /// Body bytes received and decoded so far (all of them, for byte-exact checks).
    private(set) var bodyReceived = 0

    /// Received bytes not yet decoded.
    private var raw: [UInt8] = []
    /// Decoded body bytes not yet taken as blocks.
    private var body: [UInt8] = []
    private var chunked = false
    private var contentLength: Int?
    /// Inside a chunk: the bytes of it still to come (0: its CRLF is next); nil: a size line is next.
    private var chunkRemaining: Int?

    /// Connects and sends the request; reads nothing. `receiveBufferBytes` shrinks the socket's
    /// receive buffer (set before connecting, so that the window is small from the start).
    init(
        port: Int, method: String = "GET", path: String, headers: [(String, String)] = [],
        keepAlive: Bool = true, receiveBufferBytes: Int? = nil
    ) throws {
        let socket = try Loopback.connect(
            port: port, receiveTimeout: nil, sendTimeout: 10, receiveBufferBytes: receiveBufferBytes)
        self.socket = socket
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        head += "Connection: \(keepAlive ? "keep-alive" : "close")\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        do {
            try TestClient.write(socket, Array(head.utf8))
        } catch {
            Glibc.close(socket)
            throw error
        }
    }

    /// Opens an event stream and reads its head.
    static func events(
        port: Int, path: String = "/events", headers: [(String, String)] = [], receiveBufferBytes: Int? = nil,
        timeout: Double = 5
    ) throws -> StreamClient {
        let client = try StreamClient(
            port: port, path: path, headers: headers, receiveBufferBytes: receiveBufferBytes)
        try client.readHead(timeout: timeout)
        return client
    }

    deinit {
        close()
    }

    private var isOpen = true

    func close() {
        guard isOpen else { return }
        isOpen = false
        Glibc.close(socket)
    }

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Whether bytes (or the close) have arrived, waiting up to `timeout` seconds.
    func hasData(timeout: Double = 0) -> Bool {
        if !raw.isEmpty || closed { return true }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, Int32(max(0, timeout * 1000))) > 0
    }

    /// Reads what has arrived, waiting until `deadline` for something; false on timeout or close.
    @discardableResult
    private func receive(until deadline: ContinuousClock.Instant) -> Bool {
        guard !closed else { return false }
        let remaining = deadline - ContinuousClock.now
        let milliseconds = max(0, Int32(remaining / .milliseconds(1)))
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, milliseconds)
        if ready < 0 && errno == EINTR { return true }
        guard ready > 0 else { return false }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        if count < 0 && (errno == EAGAIN || errno == EINTR) { return true }
        guard count > 0 else {
            closed = true
            ended = true
            return false
        }
        raw.append(contentsOf: buffer[0..<count])
        if hasHead { decode() }
        return true
    }

    private static let crlf: [UInt8] = [13, 10]

    private func firstIndex(of pattern: [UInt8], in bytes: [UInt8], from start: Int = 0) -> Int? {
        guard bytes.count >= pattern.count + start else { return nil }
        var index = start
        while index <= bytes.count - pattern.count {
            if bytes[index] == pattern[0] && bytes[index..<(index + pattern.count)].elementsEqual(pattern) {
                return index
            }
            index += 1
        }
        return nil
    }

    /// Reads the status line and headers.
    func readHead(timeout: Double = 5) throws {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while firstIndex(of: [13, 10, 13, 10], in: raw) == nil {
            if closed || ContinuousClock.now >= deadline {
                throw TestClientError(
                    description: "no response head within \(timeout) s (closed: \(closed)); got "
                        + String(decoding: raw, as: UTF8.self))
            }
            receive(until: deadline)
        }
        let end = firstIndex(of: [13, 10, 13, 10], in: raw)!
        let lines = String(decoding: raw[..<end], as: UTF8.self).split(separator: "\r\n")
        let parts = lines.first?.split(separator: " ") ?? []
        guard parts.count >= 2, let code = Int(parts[1]) else {
            throw TestClientError(description: "bad status line: \(lines.first ?? "")")
        }
        status = code
        headers = lines.dropFirst().compactMap { line in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters())
        }
        raw.removeFirst(end + 4)
        hasHead = true
        chunked = header("Transfer-Encoding")?.lowercased() == "chunked"
        contentLength = header("Content-Length").flatMap { Int($0) }
        if !chunked && (contentLength ?? 0) == 0 && (status == 304 || contentLength == 0) { ended = true }
        decode()
    }

    /// Moves decoded body bytes from `raw` to `body`.
    private func decode() {
        guard chunked else {
            body.append(contentsOf: raw)
            bodyReceived += raw.count
            raw.removeAll()
            if let contentLength, bodyReceived >= contentLength { ended = true }
            return
        }
        while !ended, framingError == nil {
            if let remaining = chunkRemaining {
                if remaining > 0 {
                    let count = min(remaining, raw.count)
                    guard count > 0 else { return }
                    body.append(contentsOf: raw[0..<count])
                    bodyReceived += count
                    raw.removeFirst(count)
                    chunkRemaining = remaining - count
                } else {
                    guard raw.count >= 2 else { return }
                    guard raw[0] == 13 && raw[1] == 10 else {
                        framingError = "no CRLF after a chunk's data"
                        return
                    }
                    raw.removeFirst(2)
                    chunkRemaining = nil
                }
            } else {
                guard let end = firstIndex(of: StreamClient.crlf, in: raw) else { return }
                let line = String(decoding: raw[..<end], as: UTF8.self)
                let sizeText = line.split(separator: ";", omittingEmptySubsequences: false)[0]
                guard let size = Int(sizeText, radix: 16), size >= 0 else {
                    framingError = "bad chunk size line \"\(line)\""
                    return
                }
                raw.removeFirst(end + 2)
                if size == 0 {
                    ended = true
                    return
                }
                chunkRemaining = size
            }
        }
    }

    /// The next block of the event stream, or nil if none is complete within `timeout` seconds.
    func nextBlock(timeout: Double = 5) -> StreamBlock? {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while true {
            if let end = firstIndex(of: [10, 10], in: body) {
                let block = StreamBlock(raw: String(decoding: body[..<end], as: UTF8.self))
                body.removeFirst(end + 2)
                return block
            }
            if ended || closed || ContinuousClock.now >= deadline { return nil }
            receive(until: deadline)
        }
    }

    /// The next `event:` block, skipping comments, or nil within `timeout` seconds.
    func nextEvent(timeout: Double = 5) -> StreamBlock? {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while true {
            let remaining = Double((deadline - ContinuousClock.now) / .milliseconds(1)) / 1000
            guard let block = nextBlock(timeout: max(0, remaining)) else { return nil }
            if !block.isComment && block.event != nil { return block }
        }
    }

    /// Events until one has `version` (inclusive), or what came before the deadline.
    func events(through version: Int, timeout: Double = 5) -> [StreamBlock] {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        var events: [StreamBlock] = []
        while true {
            let remaining = Double((deadline - ContinuousClock.now) / .milliseconds(1)) / 1000
            guard let event = nextEvent(timeout: max(0, remaining)) else { return events }
            events.append(event)
            if let seen = event.version, seen >= version { return events }
        }
    }

    /// Reads until the body ends (last chunk, Content-Length reached, or close) and returns the
    /// whole answer; throws if it does not come within `timeout` seconds.
    func response(timeout: Double = 5) throws -> TestResponse {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        if !hasHead { try readHead(timeout: timeout) }
        while !ended {
            if ContinuousClock.now >= deadline {
                throw TestClientError(description: "no complete answer within \(timeout) s")
            }
            receive(until: deadline)
        }
        return TestResponse(status: status, headers: headers, body: body)
    }

    /// Waits up to `timeout` seconds for the server to close the connection.
    func waitForClose(timeout: Double = 5) -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while !closed && ContinuousClock.now < deadline {
            receive(until: deadline)
            if body.count > 1 << 20 { body.removeAll() }
        }
        return closed
    }
}

extension LiveServer {
    /// A gauge or counter of `GET /metrics` for one channel (`overlayd_event_streams`, …).
    func metric(_ name: String, channel: String = "default") throws -> Int? {
        let prefix = "\(name){channel=\"\(channel)\"} "
        for line in try get("/metrics").text.split(separator: "\n") where line.hasPrefix(prefix) {
            return Int(line.dropFirst(prefix.count))
        }
        return nil
    }

    /// Polls `metric` until it equals `value`; false if it does not within `timeout` seconds.
    func waitForMetric(
        _ name: String, channel: String = "default", toBe value: Int, timeout: Double = 5
    ) throws
        -> Bool
    {
        let deadline = ContinuousClock.now + .milliseconds(Int(timeout * 1000))
        while true {
            if try metric(name, channel: channel) == value { return true }
            if ContinuousClock.now >= deadline { return false }
            usleep(10_000)
        }
    }

    /// The overlay's version, as `GET /overlay` on `path` reports it.
    func version(_ path: String = "/overlay") throws -> Int? {
        try get(path).json["version"]?.int
    }
}

/// Seconds since `start`.
func seconds(since start: ContinuousClock.Instant) -> Double {
    seconds(ContinuousClock.now - start)
}

/// A duration in seconds.
func seconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) + Double(duration.components.attoseconds) / 1e18
}

/// This process's resident set size in bytes (`VmRSS` of /proc/self/status), or nil.
func residentBytes() -> Int? {
    guard let file = fopen("/proc/self/status", "r") else { return nil }
    defer { fclose(file) }
    var line = [CChar](repeating: 0, count: 256)
    while fgets(&line, Int32(line.count), file) != nil {
        let text = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        guard text.hasPrefix("VmRSS:") else { continue }
        let digits = text.dropFirst(6).filter(\.isNumber)
        return Int(digits).map { $0 * 1024 }
    }
    return nil
}
