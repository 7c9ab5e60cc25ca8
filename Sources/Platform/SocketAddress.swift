#if canImport(Glibc)
    import Glibc
#endif

/// An IPv4 or IPv6 socket address built from a literal: the one parser of listen addresses (the
/// HTTP server binds it, the configuration checks it, the health probe connects to it).
///
/// Accepted: a dotted IPv4 literal, an IPv6 literal with or without brackets (`::1`, `[::1]`),
/// and `localhost`, which means 127.0.0.1. Host names are not resolved: a listen address that
/// depends on DNS would change under the server.
public struct SocketAddress: Sendable {
    private var storage = sockaddr_storage()
    public let isIPv6: Bool

    public init?(host: String, port: UInt16) {
        let literal = host == "localhost" ? "127.0.0.1" : host
        var v4 = sockaddr_in()
        if inet_pton(AF_INET, literal, &v4.sin_addr) == 1 {
            v4.sin_family = sa_family_t(AF_INET)
            v4.sin_port = port.bigEndian
            isIPv6 = false
            withUnsafeMutableBytes(of: &storage) { target in
                withUnsafeBytes(of: v4) { target.copyMemory(from: $0) }
            }
            return
        }
        var v6 = sockaddr_in6()
        guard inet_pton(AF_INET6, SocketAddress.unbracketed(literal), &v6.sin6_addr) == 1 else { return nil }
        v6.sin6_family = sa_family_t(AF_INET6)
        v6.sin6_port = port.bigEndian
        isIPv6 = true
        withUnsafeMutableBytes(of: &storage) { target in
            withUnsafeBytes(of: v6) { target.copyMemory(from: $0) }
        }
    }

    /// Whether `host` is an address this type accepts.
    public static func isValid(_ host: String) -> Bool {
        SocketAddress(host: host, port: 0) != nil
    }

    /// The address to reach a server listening on this one from the same machine: a wildcard
    /// (`0.0.0.0`, `::`) is reached on loopback.
    public var reachable: SocketAddress {
        var copy = self
        if isIPv6 {
            withUnsafeMutableBytes(of: &copy.storage) { raw in
                raw.withMemoryRebound(to: sockaddr_in6.self) { address in
                    if address[0].sin6_addr == in6addr_any { address[0].sin6_addr = in6addr_loopback }
                }
            }
        } else {
            withUnsafeMutableBytes(of: &copy.storage) { raw in
                raw.withMemoryRebound(to: sockaddr_in.self) { address in
                    if address[0].sin_addr.s_addr == INADDR_ANY {
                        address[0].sin_addr.s_addr = INADDR_LOOPBACK.bigEndian
                    }
                }
            }
        }
        return copy
    }

    /// Whether this is a loopback address: 127.0.0.0/8, `::1`, or 127.0.0.0/8 mapped into IPv6
    /// (`::ffff:127.0.0.1`).
    public var isLoopback: Bool {
        withSockaddr { pointer, _ in
            if isIPv6 {
                let bytes = pointer.withMemoryRebound(to: sockaddr_in6.self, capacity: 1) {
                    withUnsafeBytes(of: $0.pointee.sin6_addr) { Array($0) }
                }
                if bytes[0..<15].allSatisfy({ $0 == 0 }) && bytes[15] == 1 { return true }
                return bytes[0..<10].allSatisfy { $0 == 0 } && bytes[10] == 0xFF && bytes[11] == 0xFF
                    && bytes[12] == 127
            }
            return pointer.withMemoryRebound(to: sockaddr_in.self, capacity: 1) {
                UInt32(bigEndian: $0.pointee.sin_addr.s_addr) >> 24 == 127
            }
        }
    }

    public var family: Int32 { isIPv6 ? AF_INET6 : AF_INET }

    /// Calls `body` with the address as a `sockaddr` and its length.
    public func withSockaddr<T>(_ body: (UnsafePointer<sockaddr>, socklen_t) -> T) -> T {
        withUnsafeBytes(of: storage) { raw in
            let length = isIPv6 ? MemoryLayout<sockaddr_in6>.size : MemoryLayout<sockaddr_in>.size
            return body(raw.baseAddress!.assumingMemoryBound(to: sockaddr.self), socklen_t(length))
        }
    }

    private static func unbracketed(_ literal: String) -> String {
        literal.hasPrefix("[") && literal.hasSuffix("]") ? String(literal.dropFirst().dropLast()) : literal
    }
}

extension in6_addr {
    fileprivate static func == (lhs: in6_addr, rhs: in6_addr) -> Bool {
        withUnsafeBytes(of: lhs) { left in withUnsafeBytes(of: rhs) { right in left.elementsEqual(right) } }
    }
}
