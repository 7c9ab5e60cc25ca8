#if canImport(Glibc)
    import Glibc
#endif

/// TCP sockets to a server on 127.0.0.1, as the test clients of every test target open them.
public enum Loopback {
    /// A socket connected to 127.0.0.1:`port`. Timeouts in seconds on receiving and sending (nil:
    /// none), and the receive buffer's size, are set before connecting.
    public static func connect(
        port: Int, receiveTimeout: Int?, sendTimeout: Int?, receiveBufferBytes: Int? = nil
    ) throws -> Int32 {
        let socket = Glibc.socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socket >= 0 else { throw TestSupportError("socket failed: errno \(errno)") }
        if var size = receiveBufferBytes.map(Int32.init) {
            setsockopt(socket, SOL_SOCKET, SO_RCVBUF, &size, socklen_t(MemoryLayout<Int32>.size))
        }
        for (option, seconds) in [(SO_RCVTIMEO, receiveTimeout), (SO_SNDTIMEO, sendTimeout)] {
            guard let seconds else { continue }
            var timeout = timeval(tv_sec: seconds, tv_usec: 0)
            setsockopt(socket, SOL_SOCKET, option, &timeout, socklen_t(MemoryLayout<timeval>.size))
        }
        var address = address(port: port)
        let result = withUnsafePointer(to: &address) {
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

    /// 127.0.0.1:`port`.
    public static func address(port: Int) -> sockaddr_in {
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = UInt16(port).bigEndian
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
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
}
