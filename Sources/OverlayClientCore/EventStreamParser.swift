/// One event of a Server-Sent Events stream.
struct ServerSentEvent: Hashable, Sendable {
    /// The `event:` field; `message` when the event named none.
    var type: String
    /// The `data:` lines, joined by line feeds.
    var data: String
    /// The last `id:` seen up to this event (ids carry over from one event to the next).
    var lastEventID: String?
}

/// The event-stream format, parsed as bytes arrive, in pieces of any size: lines end with CR,
/// LF or CR LF (a CR at the end of one piece and an LF at the start of the next are one line
/// end), a blank line dispatches the event, lines starting with `:` are comments, `retry:` sets
/// the reconnection time, and a byte-order mark at the very start is skipped.
struct EventStreamParser: Sendable {
    /// A line longer than this is an error rather than memory spent without bound.
    static let maximumLineBytes = 1 << 20

    struct LineTooLong: Error {}

    /// The reconnection time the server asked for, in milliseconds.
    private(set) var retry: Int?
    /// The last event id, carried into the next connection's `Last-Event-ID`.
    private(set) var lastEventID: String?
    /// Bytes received so far, comments and heartbeats included: any of them shows the stream lives.
    private(set) var bytesReceived = 0

    private var line: [UInt8] = []
    private var afterCarriageReturn = false
    /// The first bytes while they may still be a byte-order mark.
    private var leading: [UInt8]? = []
    private var type = ""
    private var data = ""
    private var hasData = false

    private static let byteOrderMark: [UInt8] = [0xEF, 0xBB, 0xBF]

    /// Feeds the next piece of the stream; answers the events it completes, in order.
    mutating func feed(_ bytes: some Sequence<UInt8>) throws -> [ServerSentEvent] {
        var events: [ServerSentEvent] = []
        for byte in bytes {
            bytesReceived += 1
            guard var prefix = leading else {
                try take(byte, into: &events)
                continue
            }
            prefix.append(byte)
            if Self.byteOrderMark.starts(with: prefix) {
                leading = prefix.count == Self.byteOrderMark.count ? nil : prefix
                continue
            }
            leading = nil
            for byte in prefix { try take(byte, into: &events) }
        }
        return events
    }

    private mutating func take(_ byte: UInt8, into events: inout [ServerSentEvent]) throws {
        switch byte {
        case UInt8(ascii: "\n"):
            if afterCarriageReturn {
                afterCarriageReturn = false
                return
            }
            if let event = endLine() { events.append(event) }
        case UInt8(ascii: "\r"):
            afterCarriageReturn = true
            if let event = endLine() { events.append(event) }
        default:
            afterCarriageReturn = false
            line.append(byte)
            if line.count > Self.maximumLineBytes { throw LineTooLong() }
        }
    }

    private mutating func endLine() -> ServerSentEvent? {
        defer { line.removeAll(keepingCapacity: true) }
        guard !line.isEmpty else { return dispatch() }
        if line[0] == UInt8(ascii: ":") { return nil }
        let name: String
        let value: String
        if let colon = line.firstIndex(of: UInt8(ascii: ":")) {
            name = String(decoding: line[..<colon], as: UTF8.self)
            var start = colon + 1
            if start < line.count, line[start] == UInt8(ascii: " ") { start += 1 }
            value = String(decoding: line[start...], as: UTF8.self)
        } else {
            name = String(decoding: line, as: UTF8.self)
            value = ""
        }
        switch name {
        case "event":
            type = value
        case "data":
            if hasData { data += "\n" }
            data += value
            hasData = true
        case "id":
            if !value.unicodeScalars.contains("\0") { lastEventID = value }
        case "retry":
            if !value.isEmpty, value.utf8.allSatisfy({ (0x30...0x39).contains($0) }), let milliseconds = Int(value) {
                retry = milliseconds
            }
        default:
            break
        }
        return nil
    }

    /// A blank line: the event gathered so far, if it has data; either way a new event begins.
    private mutating func dispatch() -> ServerSentEvent? {
        defer {
            type = ""
            data = ""
            hasData = false
        }
        guard hasData else { return nil }
        return ServerSentEvent(type: type.isEmpty ? "message" : type, data: data, lastEventID: lastEventID)
    }
}
