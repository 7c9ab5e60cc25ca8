private import CMicroHTTPD
import Platform
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// The server's listening socket, and the thread that accepts its connections and hands each to
/// libmicrohttpd (`MHD_add_connection`), which serves it on one of its pool threads.
///
/// MHD 0.9.75: the daemon does not listen itself, because stopping that (`MHD_quiesce_daemon`)
/// races with its epoll threads, which remove the listening socket from their epoll sets too: the
/// loser's `epoll_ctl` fails with ENOENT and libmicrohttpd aborts the process (daemon.c:5531, in
/// the pool loop of `MHD_quiesce_daemon`). Here, to stop accepting is to end this thread and
/// close the socket; libmicrohttpd never sees a listening socket.
///
/// MHD 0.9.75: it also keeps the connection limit. A pool thread that finds itself at its limit
/// when it takes a connection handed over leaves its cleanup mutex locked (`new_connection_process_`
/// returns without unlocking it), and the thread deadlocks at its next use of that lock. So a
/// connection past `connectionLimit` is closed here, and libmicrohttpd's own limit is set where no
/// pool thread can reach it.
final class ConnectionAcceptor: Sendable {
    let port: Int
    let connectionLimit: Int
    /// Connections handed to libmicrohttpd that it has not closed yet.
    private let open = Atomic(0)
    private let listener: Int32
    /// A byte written here wakes the thread to stop.
    private let wakeRead: Int32
    private let wakeWrite: Int32
    private let stopped = Atomic(false)
    private let thread = Lock<pthread_t?>(nil)

    /// A socket listening on `address` (port 0: one the kernel picks), accepting nothing yet.
    init?(address: SocketAddress, connectionLimit: Int, sendBufferBytes: Int) {
        self.connectionLimit = connectionLimit
        let family = address.isIPv6 ? AF_INET6 : AF_INET
        let socket = Glibc.socket(
            family, Int32(SOCK_STREAM.rawValue | SOCK_CLOEXEC.rawValue | SOCK_NONBLOCK.rawValue), 0)
        guard socket >= 0 else { return nil }
        var on: Int32 = 1
        // As libmicrohttpd sets them on a socket of its own: a restart may bind while old
        // connections linger in TIME_WAIT, and an IPv6 address is IPv6 only.
        setsockopt(socket, SOL_SOCKET, SO_REUSEADDR, &on, socklen_t(MemoryLayout<Int32>.size))
        if address.isIPv6 {
            setsockopt(socket, Int32(IPPROTO_IPV6), IPV6_V6ONLY, &on, socklen_t(MemoryLayout<Int32>.size))
        }
        // Accepted sockets inherit it: no connection's kernel send queue grows past it.
        if sendBufferBytes > 0 { ClientSocket.limitSendBuffer(socket, to: sendBufferBytes) }
        let bound = address.withSockaddr { pointer, length in bind(socket, pointer, length) == 0 }
        var ends: [Int32] = [-1, -1]
        guard bound, listen(socket, SOMAXCONN) == 0, overlayd_pipe(&ends) == 0 else {
            close(socket)
            return nil
        }
        var storage = sockaddr_storage()
        var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
        _ = withUnsafeMutablePointer(to: &storage) {
            $0.withMemoryRebound(to: sockaddr.self, capacity: 1) { getsockname(socket, $0, &length) }
        }
        port = withUnsafeBytes(of: storage) { raw in
            // The port sits at the same place in sockaddr_in and sockaddr_in6.
            Int(UInt16(bigEndian: raw.load(fromByteOffset: 2, as: UInt16.self)))
        }
        listener = socket
        wakeRead = ends[0]
        wakeWrite = ends[1]
    }

    deinit {
        stop()
        close(wakeRead)
        close(wakeWrite)
    }

    /// Accepts connections for `daemon` from now on, on a thread of its own; false if none could
    /// be made.
    func start(daemon: OpaquePointer) -> Bool {
        final class Job {
            let acceptor: ConnectionAcceptor
            let daemon: OpaquePointer
            init(_ acceptor: ConnectionAcceptor, _ daemon: OpaquePointer) {
                self.acceptor = acceptor
                self.daemon = daemon
            }
        }
        let job = Unmanaged.passRetained(Job(self, daemon)).toOpaque()
        var created = pthread_t()
        let result = pthread_create(
            &created, nil,
            { context in
                let job = Unmanaged<Job>.fromOpaque(context!).takeRetainedValue()
                job.acceptor.run(job.daemon)
                return nil
            }, job)
        guard result == 0 else {
            Unmanaged<Job>.fromOpaque(job).release()
            return false
        }
        thread.withLock { $0 = created }
        return true
    }

    /// Stops accepting: the thread ends and the socket is closed, so new connections are refused
    /// while open ones go on. Idempotent.
    func stop() {
        guard !stopped.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var byte: UInt8 = 1
        _ = write(wakeWrite, &byte, 1)
        if let running = thread.withLock({ thread -> pthread_t? in
            defer { thread = nil }
            return thread
        }) {
            pthread_join(running, nil)
        }
        close(listener)
    }

    private func run(_ daemon: OpaquePointer) {
        var descriptors = [
            pollfd(fd: listener, events: Int16(POLLIN), revents: 0),
            pollfd(fd: wakeRead, events: Int16(POLLIN), revents: 0),
        ]
        while !stopped.load(ordering: .acquiring) {
            guard poll(&descriptors, 2, -1) > 0 else { continue }
            if stopped.load(ordering: .acquiring) { return }
            if !acceptAll(daemon) {
                // Out of descriptors or memory: the backlog waits until some are free again, as
                // nginx waits; a ready listener would otherwise make this a busy loop.
                var wake = descriptors[1]
                _ = poll(&wake, 1, 100)
            }
        }
    }

    /// libmicrohttpd closed a connection it had taken.
    func connectionClosed() {
        open.subtract(1, ordering: .relaxed)
    }

    /// Accepts every connection waiting; false when the process ran out of resources.
    private func acceptAll(_ daemon: OpaquePointer) -> Bool {
        while true {
            var storage = sockaddr_storage()
            var length = socklen_t(MemoryLayout<sockaddr_storage>.size)
            let connection = withUnsafeMutablePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    overlayd_accept(listener, $0, &length)
                }
            }
            guard connection >= 0 else {
                switch errno {
                case EINTR, ECONNABORTED, EPROTO: continue
                case EMFILE, ENFILE, ENOBUFS, ENOMEM: return false
                default: return true
                }
            }
            guard open.add(1, ordering: .relaxed).newValue <= connectionLimit else {
                open.subtract(1, ordering: .relaxed)
                close(connection)
                continue
            }
            // libmicrohttpd owns the socket from here: it closes it itself when it refuses it (the
            // per-client limit reached), and tells `connectionClosed` once it closed one it took.
            let added = withUnsafePointer(to: &storage) {
                $0.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                    MHD_add_connection(daemon, connection, $0, length)
                }
            }
            if added != .YES { open.subtract(1, ordering: .relaxed) }
        }
    }
}
