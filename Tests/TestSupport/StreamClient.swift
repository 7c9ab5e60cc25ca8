#if canImport(Glibc)
    import Glibc
#endif

/// A raw-socket HTTP/1.1 client for one request whose answer is read incrementally: the head when
/// it arrives, then the body (chunked or not) decoded as it comes and split into event-stream
/// blocks. Every read has a deadline, so a test never hangs on a server that stalls; the default
/// is generous, so only a real failure reaches it. One thread at a time uses it.
public final class StreamClient: @unchecked Sendable {
    public let socket: Int32
    public private(set) var status = 0
    public private(set) var headers: [(name: String, value: String)] = []
    public private(set) var hasHead = false
    /// The server ended the body (the last chunk, or its Content-Length) or closed the connection.
    public private(set) var ended = false
    /// The server closed the connection.
    public private(set) var closed = false
    /// A violation of the chunked framing, if one was seen.
    public private(set) var framingError: String?
    /// Body bytes received and decoded so far (all of them, for byte-exact checks).
    public private(set) var bodyReceived = 0

    /// Received bytes not yet decoded.
    private var raw: [UInt8] = []
    /// Decoded body bytes not yet taken as blocks.
    private var body: [UInt8] = []
    private var chunked = false
    private var contentLength: Int?
    /// Inside a chunk: the bytes of it still to come (0: its CRLF is next); nil: a size line is next.
    private var chunkRemaining: Int?
    private var isOpen = true

    /// Connects and sends the request; reads nothing. `receiveBufferBytes` shrinks the socket's
    /// receive buffer (set before connecting, so that the window is small from the start).
    public init(
        port: Int, method: String = "GET", path: String, headers: [(String, String)] = [],
        keepAlive: Bool = true, receiveBufferBytes: Int? = nil
    ) throws {
        let socket = try Loopback.connect(
            port: port, receiveTimeout: nil, sendTimeout: Int(patience), receiveBufferBytes: receiveBufferBytes)
        self.socket = socket
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\n"
        head += "Connection: \(keepAlive ? "keep-alive" : "close")\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        do {
            try Loopback.write(socket, Array(head.utf8))
        } catch {
            Glibc.close(socket)
            throw error
        }
    }

    /// Opens an event stream (`Accept: text/event-stream`) and reads its head.
    public static func events(
        port: Int, path: String = "/events", headers: [(String, String)] = [], receiveBufferBytes: Int? = nil,
        timeout: Double = patience
    ) throws -> StreamClient {
        let client = try StreamClient(
            port: port, path: path, headers: [("Accept", "text/event-stream")] + headers,
            receiveBufferBytes: receiveBufferBytes)
        try client.readHead(timeout: timeout)
        return client
    }

    deinit {
        close()
    }

    public func close() {
        guard isOpen else { return }
        isOpen = false
        Glibc.close(socket)
    }

    public func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// Whether bytes (or the close) have arrived, waiting up to `timeout` seconds.
    public func hasData(timeout: Double = 0) -> Bool {
        if !raw.isEmpty || !body.isEmpty || closed { return true }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        return poll(&descriptor, 1, Int32(max(0, timeout * 1000))) > 0
    }

    /// Reads the status line and headers.
    public func readHead(timeout: Double = patience) throws {
        let deadline = Deadline(after: timeout)
        while Bytes.index(of: Bytes.headEnd, in: raw) == nil {
            if closed || deadline.hasPassed {
                throw TestSupportError(
                    "no response head within \(timeout) s (closed: \(closed)); got "
                        + String(decoding: raw, as: UTF8.self))
            }
            receive(until: deadline)
        }
        let end = Bytes.index(of: Bytes.headEnd, in: raw)!
        let head = try HTTPReply.head(raw[..<end])
        status = head.status
        headers = head.headers
        raw.removeFirst(end + 4)
        hasHead = true
        chunked = header("Transfer-Encoding")?.lowercased() == "chunked"
        contentLength = header("Content-Length").flatMap { Int($0) }
        if !chunked && (contentLength ?? 0) == 0 && (status == 304 || contentLength == 0) { ended = true }
        decode()
    }

    /// The next block of the event stream, or nil if none is complete within `timeout` seconds.
    public func nextBlock(timeout: Double = patience) -> StreamBlock? {
        let deadline = Deadline(after: timeout)
        while true {
            if let end = Bytes.index(of: [10, 10], in: body) {
                let block = StreamBlock(raw: String(decoding: body[..<end], as: UTF8.self))
                body.removeFirst(end + 2)
                return block
            }
            if ended || closed || deadline.hasPassed { return nil }
            receive(until: deadline)
        }
    }

    /// The next event (comments and `retry:` blocks skipped), or nil within `timeout` seconds.
    public func nextEvent(timeout: Double = patience) -> StreamBlock? {
        let deadline = Deadline(after: timeout)
        while let block = nextBlock(timeout: deadline.remaining) {
            if block.isEvent { return block }
        }
        return nil
    }

    /// Events until one satisfies `last` (included), or what came before the deadline.
    public func events(timeout: Double = patience, until last: (StreamBlock) -> Bool) -> [StreamBlock] {
        let deadline = Deadline(after: timeout)
        var events: [StreamBlock] = []
        while let event = nextEvent(timeout: deadline.remaining) {
            events.append(event)
            if last(event) { break }
        }
        return events
    }

    /// Events until one has `id:` `version` or later (inclusive), or what came before the deadline.
    public func events(through version: Int, timeout: Double = patience) -> [StreamBlock] {
        events(timeout: timeout) { ($0.version ?? Int.min) >= version }
    }

    /// Reads until the body ends (last chunk, Content-Length reached, or close) and returns the
    /// whole answer; throws if it does not come within `timeout` seconds.
    public func response(timeout: Double = patience) throws -> HTTPReply {
        let deadline = Deadline(after: timeout)
        if !hasHead { try readHead(timeout: timeout) }
        while !ended {
            if deadline.hasPassed { throw TestSupportError("no complete answer within \(timeout) s") }
            receive(until: deadline)
        }
        return HTTPReply(status: status, headers: headers, body: body)
    }

    /// Waits up to `timeout` seconds for the server to close the connection.
    public func waitForClose(timeout: Double = patience) -> Bool {
        let deadline = Deadline(after: timeout)
        while !closed && !deadline.hasPassed {
            receive(until: deadline)
            if body.count > 1 << 20 { body.removeAll() }
        }
        return closed
    }

    /// Reads what has arrived, waiting until `deadline` for something.
    private func receive(until deadline: Deadline) {
        guard !closed else { return }
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, deadline.remainingMilliseconds)
        guard ready > 0 else { return }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        if count < 0 && (errno == EAGAIN || errno == EINTR) { return }
        guard count > 0 else {
            closed = true
            ended = true
            return
        }
        raw.append(contentsOf: buffer[0..<count])
        if hasHead { decode() }
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
                guard let end = Bytes.index(of: Bytes.crlf, in: raw) else { return }
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
}
