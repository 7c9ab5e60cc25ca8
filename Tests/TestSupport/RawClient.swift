#if canImport(Glibc)
    import Glibc
#endif

/// The tests' HTTP/1.1 client: a loopback socket that sends bytes exactly as given (requests no
/// HTTP library would write, garbage, slow heads) and shows every byte received. `request` is
/// the one-request form: a connection of its own, `Connection: close`, read until the server
/// closes it.
public final class RawClient: @unchecked Sendable {
    public let socket: Int32
    private var isOpen = true

    /// Connected to `port` (from `source`, another 127.x address, if given); a receive that
    /// hears nothing for `timeoutSeconds` gives up.
    public init(port: Int, from source: String? = nil, timeoutSeconds: Int = Int(patience)) throws {
        socket = try Loopback.connect(
            port: port, from: source, receiveTimeout: timeoutSeconds, sendTimeout: timeoutSeconds)
    }

    deinit {
        close()
    }

    public func close() {
        guard isOpen else { return }
        isOpen = false
        Glibc.close(socket)
    }

    public func send(_ bytes: [UInt8]) throws {
        try Loopback.write(socket, bytes)
    }

    public func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    /// Ends the sending side, as `nc -N` does after its input.
    public func halfClose() {
        shutdown(socket, Int32(SHUT_WR))
    }

    /// What the server sends until it closes the connection or stays silent for the receive
    /// timeout, without closing this side.
    public func receive() -> [UInt8] {
        Loopback.readAll(socket)
    }

    /// The next response on this keep-alive connection, as its Content-Length frames it.
    public func readResponse() throws -> HTTPReply {
        try Loopback.readResponse(socket)
    }

    /// Whether the server has closed the connection, waiting up to `seconds` for it.
    public func isClosed(within seconds: Double = 0) -> Bool {
        Loopback.isClosed(socket, within: seconds)
    }

    /// The status code of the first response in `bytes`, or nil if there is none.
    public static func status(of bytes: [UInt8]) -> Int? {
        let text = String(decoding: bytes.prefix(64), as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 ") || text.hasPrefix("HTTP/1.0 ") else { return nil }
        return Int(text.dropFirst(9).prefix(3))
    }

    /// One request on a connection of its own, answered until the server closes. With
    /// `halfClose` (the default) the sending side is shut after the request, as `nc -N` does;
    /// without, it stays open until the answer, as curl and browsers keep it.
    public static func request(
        _ method: String, _ path: String, port: Int, headers: [(String, String)] = [], body: String? = nil,
        from source: String? = nil, halfClose: Bool = true, timeoutSeconds: Int = Int(patience)
    ) throws -> HTTPReply {
        try request(
            method, path, port: port, headers: headers, bodyBytes: body.map { Array($0.utf8) }, from: source,
            halfClose: halfClose, timeoutSeconds: timeoutSeconds)
    }

    public static func request(
        _ method: String, _ path: String, port: Int, headers: [(String, String)] = [], bodyBytes: [UInt8]?,
        from source: String? = nil, halfClose: Bool = true, timeoutSeconds: Int = Int(patience)
    ) throws -> HTTPReply {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let bodyBytes { head += "Content-Length: \(bodyBytes.count)\r\n" }
        head += "\r\n"
        let raw = try exchange(
            port: port, send: Array(head.utf8) + (bodyBytes ?? []), from: source, halfClose: halfClose,
            timeoutSeconds: timeoutSeconds)
        return try HTTPReply.parse(raw)
    }

    /// Sends `bytes` as they are on a new connection and returns everything the server sends
    /// until it closes (or is silent for `timeoutSeconds`).
    public static func exchange(
        port: Int, send bytes: [UInt8], from source: String? = nil, halfClose: Bool = true,
        timeoutSeconds: Int = Int(patience)
    ) throws -> [UInt8] {
        let client = try RawClient(port: port, from: source, timeoutSeconds: timeoutSeconds)
        try client.send(bytes)
        if halfClose { client.halfClose() }
        return client.receive()
    }
}
