#if canImport(Glibc)
    import Glibc
#endif

/// `overlayd --healthcheck`: asks the running server for `/healthz`, so the Docker image needs
/// no HTTP client of its own.
public enum HealthProbe {
    /// Whether a server at `host`:`port` answers `GET /healthz` with 200 within `timeoutSeconds`.
    /// A wildcard listen address is probed on loopback.
    public static func isHealthy(host: String, port: Int, timeoutSeconds: Int = 3) -> Bool {
        let target: String
        switch host {
        case "0.0.0.0", "localhost": target = "127.0.0.1"
        case "::", "[::]": target = "::1"
        default: target = host.hasPrefix("[") ? String(host.dropFirst().dropLast()) : host
        }
        var storage = sockaddr_storage()
        var length: socklen_t
        var v4 = sockaddr_in()
        var v6 = sockaddr_in6()
        if inet_pton(AF_INET, target, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = UInt16(port).bigEndian
            withUnsafeMutableBytes(of: &storage) { raw in withUnsafeBytes(of: v4) { raw.copyMemory(from: $0) } }
            length = socklen_t(MemoryLayout<sockaddr_in>.size)
        } else if inet_pton(AF_INET6, target, &v6.sin6_addr) == 1 {
            v6.sin6_family = sa_family_t(AF_INET6)
            v6.sin6_port = UInt16(port).bigEndian
            withUnsafeMutableBytes(of: &storage) { raw in withUnsafeBytes(of: v6) { raw.copyMemory(from: $0) } }
            length = socklen_t(MemoryLayout<sockaddr_in6>.size)
        } else {
            return false
        }
        let descriptor = socket(Int32(storage.ss_family), Int32(SOCK_STREAM.rawValue), 0)
        guard descriptor >= 0 else { return false }
        defer { close(descriptor) }
        var timeout = timeval(tv_sec: timeoutSeconds, tv_usec: 0)
        setsockopt(descriptor, SOL_SOCKET, SO_RCVTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        setsockopt(descriptor, SOL_SOCKET, SO_SNDTIMEO, &timeout, socklen_t(MemoryLayout<timeval>.size))
        let connected = withUnsafePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { connect(descriptor, $0, length) }
        }
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
