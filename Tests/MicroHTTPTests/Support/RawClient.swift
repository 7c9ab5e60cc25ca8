import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A socket on loopback that sends bytes exactly as given: for requests no HTTP library would
/// write.
final class RawClient {
    let socket: Int32

    init(port: Int, timeoutSeconds: Int = 5) throws {
        socket = try Loopback.connect(port: port, receiveTimeout: timeoutSeconds, sendTimeout: nil)
    }

    deinit {
        close(socket)
    }

    func send(_ bytes: [UInt8]) throws {
        try Loopback.write(socket, bytes)
    }

    func send(_ text: String) throws {
        try send(Array(text.utf8))
    }

    /// What the server sends until it closes the connection or stays silent for the receive
    /// timeout: without closing our side, so an answer that only comes once the client gives up
    /// is not mistaken for one given at once.
    func receive() -> [UInt8] {
        var received: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 16384)
        while true {
            let count = buffer.withUnsafeMutableBytes { recv(socket, $0.baseAddress, $0.count, 0) }
            if count < 0 && errno == EINTR { continue }
            if count <= 0 { return received }
            received.append(contentsOf: buffer[0..<count])
        }
    }

    /// The status code of the first response in `bytes`, or nil if there is none.
    static func status(of bytes: [UInt8]) -> Int? {
        let text = String(decoding: bytes.prefix(64), as: UTF8.self)
        guard text.hasPrefix("HTTP/1.1 ") else { return nil }
        return Int(text.dropFirst(9).prefix(3))
    }
}
