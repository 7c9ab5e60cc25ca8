#if canImport(Glibc)
    import Glibc
#endif

/// This machine's TCP sockets as /proc/net/tcp and tcp6 list them: what a test reads to see a
/// connection's state from outside (who still holds it, what the kernel queues for it).
public struct TCPTable: Sendable {
    /// One socket's line.
    public struct Entry: Sendable {
        public var localPort: Int
        public var remotePort: Int
        public var state: State
        /// Bytes in the send queue (`tx_queue`) and the receive queue (`rx_queue`).
        public var sendQueue: Int
        public var receiveQueue: Int
        /// The socket's inode: 0 while the connection waits in the listener's queue, unaccepted.
        public var inode: Int
    }

    /// The states the tests look for, as the kernel numbers them.
    public enum State: Int, Sendable {
        case established = 0x01, synSent, synReceived, finWait1, finWait2, timeWait, closed, closeWait, lastAck
        case listen, closing, newSynReceived
    }

    public let entries: [Entry]

    /// The table now. procfs lists the sockets a page at a time, resuming by position: sockets
    /// opened or closed meanwhile can make a socket appear twice (or not at all), so each is
    /// kept once, and a count that must be exact is read until it holds (`eventually`).
    public init() {
        var seen = Set<[Int]>()
        entries = ["/proc/net/tcp", "/proc/net/tcp6"].flatMap { TCPTable.read($0) }.filter {
            seen.insert([$0.localPort, $0.remotePort, $0.inode, $0.state.rawValue]).inserted
        }
    }

    /// Established connections to `port`, seen from the client's side (remote port `port`).
    public static func connections(toPort port: Int) -> Int {
        TCPTable().entries.filter { $0.remotePort == port && $0.state == .established }.count
    }

    /// The server's sockets of connections on `port` (local port `port`) in `state`.
    public func served(onPort port: Int, in state: State) -> [Entry] {
        entries.filter { $0.localPort == port && $0.state == state }
    }

    private static func read(_ path: String) -> [Entry] {
        guard let file = fopen(path, "re") else { return [] }
        defer { fclose(file) }
        var entries: [Entry] = []
        var line = [CChar](repeating: 0, count: 512)
        // Read line by line to the end: procfs reports no size, and a single read stops at a page.
        while fgets(&line, Int32(line.count), file) != nil {
            let fields = String(decoding: line.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
                .split(separator: " ")
            // sl local_address rem_address st tx_queue:rx_queue …
            guard fields.count > 9, let state = Int(fields[3], radix: 16).flatMap(State.init(rawValue:)),
                let local = fields[1].split(separator: ":").last.flatMap({ Int($0, radix: 16) }),
                let remote = fields[2].split(separator: ":").last.flatMap({ Int($0, radix: 16) }),
                let queues = Optional(fields[4].split(separator: ":").compactMap({ Int($0, radix: 16) })),
                queues.count == 2, let inode = Int(fields[9])
            else { continue }
            entries.append(
                Entry(
                    localPort: local, remotePort: remote, state: state, sendQueue: queues[0],
                    receiveQueue: queues[1], inode: inode))
        }
        return entries
    }
}
