import Platform

#if canImport(Glibc)
    import Glibc
#endif

/// `overlayd --healthcheck`: asks the running server for `/healthz`, so the Docker image needs
/// no HTTP client of its own.
public enum HealthProbe {
    /// Whether a server at `host`:`port` answers `GET /healthz` with 200 within `timeoutSeconds`.
    /// A wildcard listen address is probed on loopback.
    public static func isHealthy(host: String, port: Int, timeoutSeconds: Int = 3) -> Bool {
        guard (0...65535).contains(port), let address = SocketAddress(host: host, port: UInt16(port))?.reachable else {
            return false
        }
        let descriptor = socket(address.family, Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = address.withSockaddr { connect(descriptor, $0, $1) }
        guard connected == 0 else { return false }
        let request = Array("GET /healthz HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\n\r\n".utf8)
        guard
            request.withUnsafeBytes({ send(descriptor, $0.baseAddress, $0.count, Int32(MSG_NOSIGNAL)) })
                == request.count
        else { return false }
        var reply = [UInt8](repeating: 0, count: 64)
        let received = reply.withUnsafeMutableBytes { recv(descriptor, $0.baseAddress, $0.count, 0) }
        guard received >= 12 else { return false }
        return String(decoding: reply[0..<12], as: UTF8.self).hasPrefix("HTTP/1.1 200")
    }
}
