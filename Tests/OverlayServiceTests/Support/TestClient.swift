import OverlayService
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A response as a test reads it.
struct TestResponse: Sendable {
    var status: Int
    var headers: [(name: String, value: String)]
    var body: [UInt8]

    func header(_ name: String) -> String? {
        headers.first { $0.name.lowercased() == name.lowercased() }?.value
    }

    var text: String { String(decoding: body, as: UTF8.self) }

    /// The body parsed as JSON, or `.null` when it is not JSON.
    var json: JSONValue { (try? JSONParser.parse(body)) ?? .null }

    /// The `error.code` of an error body.
    var errorCode: String? { json["error"]?["code"]?.string }
}

extension JSONValue {
    subscript(key: String) -> JSONValue? {
        if case .object(let members) = self { return members[key] }
        return nil
    }

    subscript(index: Int) -> JSONValue? {
        if case .array(let elements) = self, elements.indices.contains(index) { return elements[index] }
        return nil
    }

    var string: String? {
        if case .string(let text) = self { return text }
        return nil
    }

    var number: Double? {
        if case .number(let number) = self { return number }
        return nil
    }

    var int: Int? { number.map { Int($0) } }

    var bool: Bool? {
        if case .bool(let flag) = self { return flag }
        return nil
    }

    var array: [JSONValue]? {
        if case .array(let elements) = self { return elements }
        return nil
    }

    var isNull: Bool { self == .null }
}

struct TestClientError: Error, CustomStringConvertible {
    var description: String
}

/// A deliberately small HTTP/1.1 client over a POSIX socket, so that tests control every byte
/// sent (garbage, oversized heads, slow writers) and see every byte received.
enum TestClient {
    static func request(
        _ method: String, _ path: String, port: Int, headers: [(String, String)] = [], body: String? = nil,
        halfClose: Bool = true
    ) throws -> TestResponse {
        try request(
            method, path, port: port, headers: headers, bodyBytes: body.map { Array($0.utf8) }, halfClose: halfClose)
    }

    /// With `halfClose` (the default) the client shuts its sending side after the request, as
    /// `nc -N` does; without, it keeps it open until the answer, as curl and browsers do.
    static func request(
        _ method: String, _ path: String, port: Int, headers: [(String, String)] = [], bodyBytes: [UInt8]?,
        halfClose: Bool = true
    ) throws -> TestResponse {
        var head = "\(method) \(path) HTTP/1.1\r\nHost: 127.0.0.1:\(port)\r\nConnection: close\r\n"
        for (name, value) in headers { head += "\(name): \(value)\r\n" }
        if let bodyBytes { head += "Content-Length: \(bodyBytes.count)\r\n" }
        head += "\r\n"
        let raw = try exchange(port: port, send: Array(head.utf8) + (bodyBytes ?? []), halfClose: halfClose)
        return try parse(raw)
    }

    /// Sends `bytes` as they are and returns everything the server sends until it closes.
    static func exchange(
        port: Int, send bytes: [UInt8], timeoutSeconds: Int = 10, halfClose: Bool = true
    ) throws -> [UInt8] {
        let socket = try connect(port: port, timeoutSeconds: timeoutSeconds)
        defer { close(socket) }
        try write(socket, bytes)
        if halfClose { shutdown(socket, Int32(SHUT_WR)) }
        return readAll(socket)
    }

    static func connect(port: Int, timeoutSeconds: Int = 10) throws -> Int32 {
        try Loopback.connect(port: port, receiveTimeout: timeoutSeconds, sendTimeout: timeoutSeconds)
    }

    static func write(_ socket: Int32, _ bytes: [UInt8]) throws {
        try Loopback.write(socket, bytes)
    }

    static func readAll(_ socket: Int32) -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return received }
            received.append(contentsOf: buffer[0..<count])
        }
    }

    static func parse(_ raw: [UInt8]) throws -> TestResponse {
        let separator: [UInt8] = [13, 10, 13, 10]
        guard let end = raw.indices.first(where: { raw[$0...].starts(with: separator) }) else {
            throw TestClientError(
                description: "no response head in \(raw.count) bytes: \(String(decoding: raw, as: UTF8.self))")
        }
        let lines = String(decoding: raw[..<end], as: UTF8.self).split(
            separator: "\r\n", omittingEmptySubsequences: false)
        let statusParts = lines[0].split(separator: " ")
        guard statusParts.count >= 2, let status = Int(statusParts[1]) else {
            throw TestClientError(description: "bad status line \(lines[0])")
        }
        var headers: [(name: String, value: String)] = []
        for line in lines.dropFirst() {
            guard let colon = line.firstIndex(of: ":") else { continue }
            headers.append((String(line[..<colon]), line[line.index(after: colon)...].trimmingCharacters()))
        }
        var body = Array(raw[(end + 4)...])
        if let length = headers.first(where: { $0.name.lowercased() == "content-length" }).flatMap({ Int($0.value) }) {
            body = Array(body.prefix(length))
        }
        return TestResponse(status: status, headers: headers, body: body)
    }
}

extension Substring {
    func trimmingCharacters() -> String {
        String(drop { $0 == " " }.reversed().drop { $0 == " " }.reversed())
    }
}

/// A real overlayd on a free loopback port, stopped when the test is done with it.
final class LiveServer: Sendable {
    let server: OverlayServer
    var port: Int { server.port }

    init(clock: ClockMode = .manual, configure: (inout ServiceConfiguration) -> Void = { _ in }) throws {
        var configuration = ServiceConfiguration()
        configuration.port = 0
        configuration.clock = clock
        configuration.accessLog = false
        configuration.ephemeral = true
        configuration.writesPerSecond = 0
        // Raw-socket tests name the host `x`; the DNS-rebinding check would refuse it.
        configuration.allowedHosts = ["x"]
        configure(&configuration)
        server = try OverlayServer(configuration: configuration)
    }

    deinit {
        server.stop(grace: 1)
    }

    func request(
        _ method: String, _ path: String, headers: [(String, String)] = [], body: String? = nil,
        halfClose: Bool = true
    ) throws -> TestResponse {
        try TestClient.request(method, path, port: port, headers: headers, body: body, halfClose: halfClose)
    }

    func get(_ path: String) throws -> TestResponse { try request("GET", path) }

    /// POSTs JSON.
    func post(_ path: String, json: String) throws -> TestResponse {
        try request("POST", path, headers: [("Content-Type", "application/json")], body: json)
    }

    /// Moves the manual clock forward.
    @discardableResult
    func advance(_ seconds: Double) throws -> TestResponse {
        try post("/clock", json: "{\"advance\": \(seconds)}")
    }

    func overlay() throws -> JSONValue { try get("/overlay").json }
}
