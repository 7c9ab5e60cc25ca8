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

    /// The positions of the sockets whose client has closed its side, as `hasClosed` judges each.
    /// One `poll` looks at them all and `hasClosed` only at those it flags: every parked reader
    /// together costs one system call, not one each. Data waiting alone is not a close; a hang-up
    /// with data still waiting is none either (`hasClosed` reads the data first), which the peek
    /// settles.
    static func closed(_ sockets: [Int32]) -> [Int] {
        guard !sockets.isEmpty else { return [] }
        let watched = Int16(OVERLAYD_POLLRDHUP) | Int16(POLLHUP) | Int16(POLLERR) | Int16(POLLNVAL)
        var fds = sockets.map { pollfd(fd: $0, events: Int16(OVERLAYD_POLLRDHUP), revents: 0) }
        guard poll(&fds, nfds_t(fds.count), 0) >= 0 else {
            return sockets.indices.filter { hasClosed(sockets[$0]) }
        }
        return fds.indices.filter { fds[$0].revents & watched != 0 && hasClosed(sockets[$0]) }
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
