import Foundation
import TestSupport

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
        (listener, port) = try Loopback.listen()
        Thread.detachNewThread { [self] in accepting() }
    }

    deinit {
        shutdown(listener, Int32(SHUT_RDWR))
        close(listener)
        lock.withLock { held.forEach { close($0) } }
    }

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }

    private func accepting() {
        while true {
            let client = Loopback.accept(listener)
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
        guard let server = try? Loopback.connect(port: upstream, receiveTimeout: nil, sendTimeout: nil) else {
            close(client)
            return
        }
        if stream { lock.withLock { streams.append((client, server)) } }
        defer {
            lock.withLock { streams.removeAll { $0 == (client, server) } }
            close(client)
            close(server)
        }
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
