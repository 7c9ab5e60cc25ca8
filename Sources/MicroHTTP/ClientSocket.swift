private import CMicroHTTPD

#if canImport(Glibc)
    import Glibc
#endif

/// The client's side of a connection, seen through its socket: for parked readers, which
/// libmicrohttpd does not watch while their connection is suspended.
enum ClientSocket {
    /// The connection's socket, or -1. Only while libmicrohttpd keeps the connection (inside one
    /// of its callbacks, or while the connection is suspended).
    static func descriptor(of connection: OpaquePointer) -> Int32 {
        overlayd_mhd_connection_fd(connection)
    }

    /// Whether the client has closed its side (or reset the connection): a peek reads end of file
    /// or an error other than "nothing yet". Bytes it sent stay for libmicrohttpd to read.
    static func hasClosed(_ socket: Int32) -> Bool {
        guard socket >= 0 else { return false }
        var byte: UInt8 = 0
        let count = recv(socket, &byte, 1, Int32(MSG_PEEK | MSG_DONTWAIT))
        return count == 0 || (count < 0 && errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)
    }

    /// Caps the socket's send queue at about `bytes` (which also ends the kernel's growing it).
    /// Linux doubles the value asked for, to count its own bookkeeping, and the queue fills to
    /// about the doubled value: half is asked for.
    static func limitSendBuffer(_ socket: Int32, to bytes: Int) {
        guard socket >= 0 else { return }
        var size = Int32(clamping: bytes / 2)
        _ = setsockopt(socket, SOL_SOCKET, SO_SNDBUF, &size, socklen_t(MemoryLayout<Int32>.size))
    }
}
