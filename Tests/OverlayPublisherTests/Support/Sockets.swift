import Dispatch
import Synchronization
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

struct SupportError: Error, CustomStringConvertible {
    var description: String
    init(_ description: String) { self.description = description }
}

/// Loopback sockets for the test clients and the capturing endpoint.
enum Sockets {
    static func connect(port: Int, timeoutSeconds: Int = 10) throws -> Int32 {
        try Loopback.connect(port: port, receiveTimeout: timeoutSeconds, sendTimeout: timeoutSeconds)
    }

    /// A socket listening on a free loopback port, and the port.
    static func listen() throws -> (socket: Int32, port: Int) {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw SupportError("socket failed") }
        var one: Int32 = 1
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &one, socklen_t(MemoryLayout<Int32>.size))
        var address = loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(socket, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, Glibc.listen(socket, 64) == 0 else {
            close(socket)
            throw SupportError("bind/listen failed: errno \(errno)")
        }
        var actual = sockaddr_in()
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &actual) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        return (socket, Int(UInt16(bigEndian: actual.sin_port)))
    }

    /// A port nothing listens on now (bound, then released): for a server started right after.
    static func freePort() throws -> Int {
        let (socket, port) = try listen()
        close(socket)
        return port
    }

    static func loopback(port: Int) -> sockaddr_in {
        Loopback.address(port: port)
    }

    static func write(_ socket: Int32, _ bytes: [UInt8]) throws {
        try Loopback.write(socket, bytes)
    }

    /// Waits up to `milliseconds` for bytes and reads what is there: nil on timeout, [] on close.
    static func read(_ socket: Int32, milliseconds: Int32) -> [UInt8]? {
        var descriptor = pollfd(fd: socket, events: Int16(POLLIN), revents: 0)
        let ready = poll(&descriptor, 1, max(0, milliseconds))
        guard ready > 0 else { return nil }
        var buffer = [UInt8](repeating: 0, count: 65536)
        let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, Int32(MSG_DONTWAIT)) }
        if count < 0 && (errno == EAGAIN || errno == EINTR) { return nil }
        return count > 0 ? Array(buffer[0..<count]) : []
    }

    static func index(of pattern: [UInt8], in bytes: [UInt8], from start: Int = 0) -> Int? {
        guard bytes.count >= pattern.count + start else { return nil }
        for index in start...(bytes.count - pattern.count)
        where bytes[index] == pattern[0] && bytes[index..<(index + pattern.count)].elementsEqual(pattern) {
            return index
        }
        return nil
    }
}

/// A response as the tests read it.
struct Reply: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    var text: String { String(decoding: body, as: UTF8.self) }

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }
}

/// One request per connection (`Connection: close`), the answer read until the server closes.
enum HTTP {
    static func request(
        _ method: String, _ path: String, port: Int, headers: [(String, String)] = [], body: String? = nil,
        timeoutSeconds: Int = 10
    ) throws -> Reply {
        let socket = try Sockets.connect(port: port, timeoutSeconds: timeoutSeconds)
        defer { close(socket) }
        let bodyBytes = body.map { Array($0.utf8) }
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let bodyBytes { head += "Content-Length: \(bodyBytes.count)\r\n" }
        head += "\r\n"
        try Sockets.write(socket, Array(head.utf8) + (bodyBytes ?? []))
        var raw: [UInt8] = []
        let deadline = Int64(timeoutSeconds) * 1000
        var waited: Int64 = 0
        while waited < deadline {
            guard let bytes = Sockets.read(socket, milliseconds: 100) else {
                waited += 100
                continue
            }
            if bytes.isEmpty { break }
            raw += bytes
        }
        return try parse(raw)
    }

    static func parse(_ raw: [UInt8]) throws -> Reply {
        guard let end = Sockets.index(of: [13, 10, 13, 10], in: raw) else {
            throw SupportError("no complete response head in \(raw.count) bytes")
        }
        let lines = String(decoding: raw[..<end], as: UTF8.self).split(separator: "\r\n").map(String.init)
        let parts = lines.first?.split(separator: " ") ?? []
        guard parts.count >= 2, let status = Int(parts[1]) else { throw SupportError("bad status line") }
        let headers = lines.dropFirst().compactMap { line -> (String, String)? in
            guard let colon = line.firstIndex(of: ":") else { return nil }
            return (String(line[..<colon]), String(line[line.index(after: colon)...].drop { $0 == " " }))
        }
        var body = Array(raw[(end + 4)...])
        if headers.contains(where: { $0.0.lowercased() == "transfer-encoding" && $0.1.lowercased() == "chunked" }) {
            body = dechunk(body)
        }
        return Reply(status: status, headers: headers, body: body)
    }

    static func dechunk(_ bytes: [UInt8]) -> [UInt8] {
        var out: [UInt8] = []
        var index = 0
        while let lineEnd = Sockets.index(of: [13, 10], in: bytes, from: index) {
            let sizeText = String(decoding: bytes[index..<lineEnd], as: UTF8.self)
            guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16), size > 0 else { break }
            let start = lineEnd + 2
            guard start + size <= bytes.count else { break }
            out += bytes[start..<(start + size)]
            index = start + size + 2
        }
        return out
    }
}

/// Polls `condition` every 10 ms until it holds or `seconds` pass; returns whether it held.
func eventually(within seconds: Double = 10, _ condition: () throws -> Bool) rethrows -> Bool {
    var waited = 0.0
    while waited < seconds {
        if try condition() { return true }
        usleep(10_000)
        waited += 0.01
    }
    return try condition()
}

/// A thread of its own for a blocking loop. Dispatch's global queues have as many threads as
/// cores here (2): loops that block in `accept` or `poll` would starve each other there.
enum Threads {
    private final class Body {
        let run: () -> Void
        init(_ run: @escaping () -> Void) { self.run = run }
    }

    static func spawn(_ body: @escaping @Sendable () -> Void) {
        var thread = pthread_t()
        let context = Unmanaged.passRetained(Body(body)).toOpaque()
        pthread_create(
            &thread, nil,
            { context in
                Unmanaged<Body>.fromOpaque(context!).takeRetainedValue().run()
                return nil
            }, context)
        pthread_detach(thread)
    }
}
