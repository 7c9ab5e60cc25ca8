#if canImport(Glibc)
    import Glibc
#endif

/// One event of an event stream: its fields as EventSource reads them.
struct StreamEvent: Sendable, CustomStringConvertible {
    var id: String?
    var event: String?
    var data: String

    /// The overlay version in the data.
    var version: Int? { OverlayPublisherTests.version(ofJSON: data) }

    var description: String { "id=\(id ?? "-") event=\(event ?? "-") version=\(version.map(String.init) ?? "-")" }
}

/// An EventSource client over a raw socket: the request, the head, then events as they arrive
/// (chunked or not). Every read has a deadline; the test never hangs on a quiet server.
final class EventStream: @unchecked Sendable {
    private let socket: Int32
    private(set) var status = 0
    private(set) var headers: [(name: String, value: String)] = []
    private(set) var closed = false
    private var raw: [UInt8] = []
    private var body: [UInt8] = []
    private var chunked = false
    private var pending: [StreamEvent] = []

    init(port: Int, path: String, headers: [(String, String)] = [], timeout: Double = 5) throws {
        socket = try Sockets.connect(port: port)
        var head = "GET \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nAccept: text/event-stream\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        head += "\r\n"
        do {
            try Sockets.write(socket, Array(head.utf8))
            try readHead(timeout: timeout)
        } catch {
            close(socket)
            throw error
        }
    }

    deinit {
        close(socket)
    }

    private func readHead(timeout: Double) throws {
        var waited = 0.0
        while Sockets.index(of: [13, 10, 13, 10], in: raw) == nil {
            guard waited < timeout, !closed else { throw SupportError("no event-stream head within \(timeout) s") }
            if let bytes = Sockets.read(socket, milliseconds: 50) {
                if bytes.isEmpty { closed = true } else { raw += bytes }
            } else {
                waited += 0.05
            }
        }
        let end = Sockets.index(of: [13, 10, 13, 10], in: raw)!
        let reply = try HTTP.parse(Array(raw[..<(end + 4)]))
        status = reply.status
        headers = reply.headers
        chunked = reply.header("Transfer-Encoding")?.lowercased() == "chunked"
        raw.removeFirst(end + 4)
        decode()
    }

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    /// The next event, waiting up to `timeout` seconds; nil on timeout or close.
    func next(timeout: Double = 10) -> StreamEvent? {
        var waited = 0.0
        while pending.isEmpty {
            guard waited < timeout, !closed else { return nil }
            if let bytes = Sockets.read(socket, milliseconds: 50) {
                if bytes.isEmpty { closed = true } else { raw += bytes }
                decode()
            } else {
                waited += 0.05
            }
        }
        return pending.removeFirst()
    }

    /// Events until one satisfies `last` (included), or `timeout` seconds without one.
    func events(until last: (StreamEvent) -> Bool, timeout: Double = 15) -> [StreamEvent] {
        var received: [StreamEvent] = []
        while let event = next(timeout: timeout) {
            received.append(event)
            if last(event) { break }
        }
        return received
    }

    /// Whether the server has closed the stream, waiting up to `timeout` seconds for it.
    func isClosed(within timeout: Double) -> Bool {
        var waited = 0.0
        while !closed && waited < timeout {
            if let bytes = Sockets.read(socket, milliseconds: 50) {
                if bytes.isEmpty { closed = true } else { raw += bytes }
                decode()
            } else {
                waited += 0.05
            }
        }
        return closed
    }

    private func decode() {
        if chunked {
            while let lineEnd = Sockets.index(of: [13, 10], in: raw) {
                let sizeText = String(decoding: raw[..<lineEnd], as: UTF8.self)
                guard let size = Int(sizeText.split(separator: ";").first ?? "", radix: 16) else { break }
                guard raw.count >= lineEnd + 2 + size + 2 else { break }
                body += raw[(lineEnd + 2)..<(lineEnd + 2 + size)]
                raw.removeFirst(lineEnd + 2 + size + 2)
            }
        } else {
            body += raw
            raw = []
        }
        // Blocks end with a blank line; comments (":…") and blocks without data are no events.
        while let end = Sockets.index(of: [10, 10], in: body) {
            let block = String(decoding: body[..<end], as: UTF8.self)
            body.removeFirst(end + 2)
            var event = StreamEvent(id: nil, event: nil, data: "")
            var hasData = false
            for line in block.split(separator: "\n", omittingEmptySubsequences: false) {
                guard !line.hasPrefix(":"), let colon = line.firstIndex(of: ":") else { continue }
                var value = line[line.index(after: colon)...]
                if value.first == " " { value = value.dropFirst() }
                switch line[..<colon] {
                case "id": event.id = String(value)
                case "event": event.event = String(value)
                case "data":
                    event.data += (hasData ? "\n" : "") + value
                    hasData = true
                default: break
                }
            }
            if hasData { pending.append(event) }
        }
    }
}

/// nchan's message id, `<seconds>:<tag>`, as a pair that orders as nchan does.
func nchanOrder(_ id: String?) -> (Int, Int)? {
    guard let parts = id?.split(separator: ":"), parts.count == 2, let time = Int(parts[0]), let tag = Int(parts[1])
    else { return nil }
    return (time, tag)
}
