#if canImport(Glibc)
    import Glibc
#endif

/// TCP sockets on 127.0.0.1, as every test target opens them. Each is close-on-exec from the
/// start: a child process another test starts meanwhile must not inherit a connection (and keep
/// it established) or a listener (and keep its port taken).
public enum Loopback {
    /// A socket connected to 127.0.0.1:`port`, from `source` (another 127.x address) if given.
    /// Timeouts in seconds on receiving and sending (nil: none), and the receive buffer's size,
    /// are set before connecting.
    public static func connect(
        port: Int, from source: String? = nil, receiveTimeout: Int?, sendTimeout: Int?,
        receiveBufferBytes: Int? = nil
    ) throws -> Int32 {
        let socket = try newSocket()
        if var size = receiveBufferBytes.map(Int32.init) {
            setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        for (option, seconds) in [(SO_RCVTIMEO, receiveTimeout), (SO_SNDTIMEO, sendTimeout)] {
            guard let seconds else { continue }
            var timeout = timeval(tv_sec: seconds, tv_usec: 0)
            setsockopt(socket, SOL_SOCKET, option, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
        if let source {
            var local = address(port: 0, host: source)
            guard bind(socket, &local) == 0 else {
                let code = errno
                close(socket)
                throw TestSupportError("bind to \(source) failed: errno \(code)")
            }
        }
        var remote = address(port: port)
        let result = withUnsafePointer(to: &remote) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.connect(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard result == 0 else {
            let code = errno
            close(socket)
            throw TestSupportError("connect to port \(port) failed: errno \(code)")
        }
        return socket
    }

    /// `connect` with the same timeout both ways.
    public static func connect(port: Int, timeoutSeconds: Int = Int(patience)) throws -> Int32 {
        try connect(port: port, receiveTimeout: timeoutSeconds, sendTimeout: timeoutSeconds)
    }

    /// A socket listening on a port of the kernel's choosing, and the port.
    public static func listen(backlog: Int32 = 64) throws -> (socket: Int32, port: Int) {
        let socket = try newSocket()
        var one: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var local = address(port: 0)
        guard bind(socket, &local) == 0, Glibc.listen(socket, backlog) == 0 else {
            let code = errno
            close(socket)
            throw TestSupportError("bind/listen failed: errno \(code)")
        }
        return (socket, port(of: socket))
    }

    /// A free port for a program that cannot be told to take port 0 (nginx, Redis): one below
    /// the kernel's ephemeral range, which nothing else in the tests binds (they all take port
    /// 0, and outgoing connections take ports in that range), checked free by binding it.
    public static func freePort() throws -> Int {
        let low = ephemeralRangeStart()
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<1000 {
            let port = Int.random(in: 10_000..<max(10_001, low), using: &generator)
            let socket = try newSocket()
            var local = address(port: port)
            let bound = bind(socket, &local) == 0
            close(socket)
            if bound { return port }
        }
        throw TestSupportError("no free port below \(low)")
    }

    /// A port that refuses connections for as long as `socket` stays open: bound, never
    /// listening, so that nothing else can take it meanwhile. For "nothing answers there".
    public static func refusingPort() throws -> (socket: Int32, port: Int) {
        let socket = try newSocket()
        var local = address(port: 0)
        guard bind(socket, &local) == 0 else {
            let code = errno
            close(socket)
            throw TestSupportError("bind failed: errno \(code)")
        }
        return (socket, port(of: socket))
    }

    /// The first port of `net.ipv4.ip_local_port_range`.
    private static func ephemeralRangeStart() -> Int {
        let text = TemporaryDirectory.read("/proc/sys/net/ipv4/ip_local_port_range")
        return text.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).first.flatMap { Int($0) } ?? 32768
    }

    /// The next connection on `listener`, close-on-exec; negative on failure (errno set).
    public static func accept(_ listener: Int32) -> Int32 {
        GNU.acceptClosingOnExec(listener)
    }

    /// The local port `socket` is bound to.
    public static func port(of socket: Int32) -> Int {
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        return Int(UInt16(bigEndian: actual.sin_port))
    }

    /// `host`:`port` (127.0.0.1 unless given).
    public static func address(port: Int, host: String = "127.0.0.1") -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr(host)
        return address
    }

    /// Sends all of `bytes`, retrying after interruptions; never raises SIGPIPE.
    public static func write(_ socket: Int32, _ bytes: [UInt8]) throws {
        var offset = 0
        while offset < bytes.count {
            let sent = bytes.withUnsafeBytes {
                send(socket, $0.baseAddress! + offset, $0.count - offset, Int32(MSG_NOSIGNAL))
            }
            if sent < 0 && errno == EINTR { continue }
            guard sent > 0 else { throw TestSupportError("send failed: errno \(errno)") }
            offset += sent
        }
    }

    /// Waits up to `milliseconds` for bytes and reads what is there: nil on timeout, [] once the
    /// peer has closed (or reset) the connection.
    public static func read(_ socket: Int32, milliseconds: Int32) -> [UInt8]? {
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, max(0, milliseconds))
        guard ready > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        if count < 0 && (errno == EAGAIN || errno == EINTR) { return nil }
        return count > 0 ? Array(buffer[0..<count]) : []
    }

    /// Everything received until the peer closes or the socket's receive timeout passes in silence.
    public static func readAll(_ socket: Int32) -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return received }
            received.append(contentsOf: buffer[0..<count])
        }
    }

    /// One response from a keep-alive connection: its head, then the body its Content-Length
    /// says. Read a byte at a time up to the head, so that nothing of a later response is taken.
    public static func readResponse(_ socket: Int32) throws -> HTTPReply {
        var received: [UInt8] = []
        var byte: UInt8 = 0
        while !received.suffix(4).elementsEqual(Bytes.headEnd) {
            guard recv(socket, &byte, 1, 0) == 1 else {
                throw TestSupportError("closed in the head: \(String(decoding: received, as: UTF8.self))")
            }
            received.append(byte)
        }
        let head = try HTTPReply.head(received.dropLast(4))
        let length = Int(head.header("Content-Length") ?? "0") ?? 0
        var body = [UInt8](repeating: 0, count: length)
        var got = 0
        while got < length {
            let count = body.withUnsafeMutableBytes { recv(socket, $0.baseAddress! + got, length - got, 0) }
            if count < 0 && errno == EINTR { continue }
            guard count > 0 else { throw TestSupportError("closed in the body after \(got) of \(length) bytes") }
            got += count
        }
        return HTTPReply(status: head.status, headers: head.headers, body: body)
    }

    /// Whether the peer has closed `socket` (or reset it), waiting up to `seconds` for that;
    /// bytes that come first are read and dropped.
    public static func isClosed(_ socket: Int32, within seconds: Double = 0) -> Bool {
        let deadline = Deadline(after: seconds)
        repeat {
            guard let bytes = read(socket, milliseconds: min(deadline.remainingMilliseconds, 100)) else { continue }
            if bytes.isEmpty { return true }
        } while !deadline.hasPassed
        return false
    }

    private static func newSocket() throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue) | Int32(SOCK_CLOEXEC.rawValue), 0)
        guard socket >= 0 else { throw TestSupportError("socket failed: errno \(errno)") }
        return socket
    }

    private static func bind(_ socket: Int32, _ address: inout sockaddr_in) -> Int32 {
        withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                Glibc.bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
    }
}
