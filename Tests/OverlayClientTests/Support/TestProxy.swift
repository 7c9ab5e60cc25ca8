import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A loopback HTTP proxy in front of overlayd that passes every request on (one per connection)
/// and event streams either too (and can cut them), or holds them without a byte (a proxy that
/// buffers them), or refuses them with 404: the two ways streaming fails on the way to a server.
final class TestProxy: @unchecked Sendable {
    enum Events {
        case pass
        case stall
        case notFound
    }

    let port: Int
    private let listener: Int32
    private let upstream: Int
    private let events: Events
    private let lock = NSLock()
    private var held: [Int32] = []
    private var heads: [String] = []
    /// Both sockets of each event stream passed on.
    private var streams: [(Int32, Int32)] = []

    /// The requests' heads seen so far, in order.
    var requestHeads: [String] { lock.withLock { heads } }

    /// The request lines' paths seen so far, in order.
    var requests: [String] {
        requestHeads.map { $0.split(separator: " ").dropFirst().first.map(String.init) ?? "" }
    }

    /// Cuts every event stream passed on so far, as a network failure would.
    func cutStreams() {
        for (client, server) in lock.withLock({ streams }) {
            shutdown(client, Int32(SHUT_RDWR))
            shutdown(server, Int32(SHUT_RDWR))
        }
    }

    init(upstream: Int, events: Events) throws {
        self.upstream = upstream
        self.events = events
        let listener = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        self.listener = listener
        var address = Self.loopback(port: 0)
        let bound = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                bind(listener, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard bound == 0, listen(listener, 64) == 0 else { throw TestFailure(description: "proxy cannot listen") }
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        _ = withUnsafeMutablePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(listener, $0, &length) }
        }
        port = Int(UInt16(bigEndian: address.sin_port))
        Thread.detachNewThread { [self] in accepting() }
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        lock.withLock { held.forEach { close($0) } }
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    private static func loopback(port: UInt16) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = port.bigEndian
        address.sin_addr.s_addr = UInt32(0x7F00_0001).bigEndian
        return address
    }

    private func accepting() {
        while true {
            let client = accept(listener, nil, nil)
            guard client >= 0 else { return }
            Thread.detachNewThread { [self] in serve(client) }
        }
    }

    private func serve(_ client: Int32) {
        var request: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while !request.containsHeadEnd {
            let count = read(client, &buffer, buffer.count)
            guard count > 0 else {
                close(client)
                return
            }
            request += buffer[..<count]
        }
        let head = String(decoding: request, as: UTF8.self)
        let path = head.split(separator: " ").dropFirst().first.map(String.init) ?? ""
        lock.withLock { heads.append(head) }
        if path.contains("/events"), events != .pass {
            switch events {
            case .pass:
                break
            case .stall:
                lock.withLock { held.append(client) }
            case .notFound:
                let body = #"{"error":{"code":"not_found","message":"no streams here"}}"#
                Self.write(
                    client,
                    "HTTP/1.1 404 Not Found\r\nContent-Type: application/json\r\nContent-Length: \(body.utf8.count)\r\n"
                        + "Connection: close\r\n\r\n\(body)")
                close(client)
            }
            return
        }
        relay(request, from: client, stream: path.contains("/events"))
    }

    /// Passes the request on with `Connection: close` and the answer back, then closes both.
    private func relay(_ request: [UInt8], from client: Int32, stream: Bool) {
        let server = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        if stream { lock.withLock { streams.append((client, server)) } }
        defer {
            lock.withLock { streams.removeAll { $0 == (client, server) } }
            close(client)
            close(server)
        }
        var address = Self.loopback(port: UInt16(upstream))
        let connected = withUnsafePointer(to: &address) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(server, $0, socklen_t(MemoryLayout<sockaddr_in>.size))
            }
        }
        guard connected == 0 else { return }
        var text = String(decoding: request, as: UTF8.self)
        text = text.replacingOccurrences(of: "\r\nConnection: keep-alive", with: "", options: .caseInsensitive)
        text = text.replacingOccurrences(
            of: "\r\n\r\n", with: "\r\nConnection: close\r\n\r\n", options: [], range: text.range(of: "\r\n\r\n"))
        Self.write(server, text)
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = read(server, &buffer, buffer.count)
            guard count > 0 else { return }
            var offset = 0
            while offset < count {
                let written = buffer[offset..<count].withUnsafeBytes { Glibc.write(client, $0.baseAddress, $0.count) }
                guard written > 0 else { return }
                offset += written
            }
        }
    }

    private static func write(_ socket: Int32, _ text: String) {
        let bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes[offset...].withUnsafeBytes { Glibc.write(socket, $0.baseAddress, $0.count) }
            guard written > 0 else { return }
            offset += written
        }
    }
}

extension [UInt8] {
    fileprivate var containsHeadEnd: Bool {
        count >= 4 && indices.dropLast(3).contains { self[$0...$0 + 3].elementsEqual([13, 10, 13, 10]) }
    }
}
