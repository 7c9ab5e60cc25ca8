private import CMicroHTTPD
import Platform

/// A response body written piece by piece while the connection stays open (Server-Sent Events).
///
/// `send` may be called from any thread. Pieces wait in a bounded buffer: a client that reads
/// too slowly loses the pieces it has not started to receive, never the framing of the one it is
/// receiving, and the latest piece is always kept. While the buffer is empty the connection is
/// suspended, so an idle stream costs no thread and no polling.
///
/// A stream made without a connection (a test's) has nothing to wake: what it is sent stays
/// buffered until a test takes it (`takeBuffered`).
///
/// A stream is listed in a `StreamRegistry` (its server's, under the application's group) and
/// keeps where: the end of its connection (`released`) takes it off, so that no list of streams
/// needs telling when one is over.
///
/// Sendable as it stands: everything that changes is in `state`'s lock, and of the connection it
/// holds only the wake-up; its own thread suspends it through `Source`.
public final class HTTPStream: Sendable {
    private let wakeup: ConnectionWakeup?
    private let state = Lock(StreamStateMachine<StreamRegistry.Listing>())

    init(wakeup: ConnectionWakeup?) {
        self.wakeup = wakeup
    }

    /// A stream with no connection, for an answer taken without a socket (a test's): what it is
    /// sent stays buffered until taken (`takeBuffered`), and `end` closes it at once.
    public convenience init() {
        self.init(wakeup: nil)
    }

    /// What libmicrohttpd's reader callback is given: the stream and its connection, which only
    /// that callback, on the connection's thread, suspends. Retained by libmicrohttpd for the
    /// response's life (released by its free callback).
    final class Source {
        let stream: HTTPStream
        let connection: OpaquePointer

        init(_ stream: HTTPStream, on connection: OpaquePointer) {
            self.stream = stream
            self.connection = connection
        }
    }

    /// Wakes the suspended connection: there is something to send, or the end.
    private func resume() {
        wakeup?.resume()
    }

    /// Queues `piece` to be sent. When the buffer would hold more than `limit` bytes, the pieces
    /// not yet started are dropped first. Returns false once the stream has ended or its client
    /// has gone, so that the writer can forget it.
    @discardableResult
    public func send(_ piece: [UInt8], limit: Int = 64 * 1024) -> Bool {
        carryOut(state.withLock { $0.send(piece, limit: limit) })
    }

    /// Queues `piece`, numbered `number` (an event's version), unless a piece numbered as high was
    /// sent or skipped before: two writers racing on two threads still give the client growing
    /// numbers. Returns false once the stream has ended or its client has gone.
    @discardableResult
    public func send(_ piece: [UInt8], number: UInt64, limit: Int = 64 * 1024) -> Bool {
        carryOut(state.withLock { $0.send(piece, number: number, limit: limit) })
    }

    /// The client has the pieces numbered up to `number` (it said so reconnecting): none of them
    /// is sent from now on.
    public func skip(through number: UInt64) {
        state.withLock { $0.skip(through: number) }
    }

    /// Queues `piece` only if nothing is waiting to be sent (a keep-alive, which on a backed-up
    /// stream would push out what its client has yet to receive). Returns false once the stream
    /// has ended or its client has gone.
    @discardableResult
    public func sendIfIdle(_ piece: [UInt8], limit: Int = 64 * 1024) -> Bool {
        carryOut(state.withLock { $0.sendIfIdle(piece, limit: limit) })
    }

    /// What a send leaves to do, after the lock: whether the stream still takes pieces.
    private func carryOut(_ action: StreamStateMachine<StreamRegistry.Listing>.SendAction) -> Bool {
        switch action {
        case .rejected: return false
        case .queued, .skipped: return true
        case .resume:
            resume()
            return true
        }
    }

    /// Ends the response after what is buffered has gone out. A stream without a connection, which
    /// nothing sends, is over at once: it leaves its registry, as libmicrohttpd's release makes it.
    public func end() {
        if state.withLock({ $0.end() }) == .resume { resume() }
        if wakeup == nil { released() }
    }

    /// Bytes waiting to be sent.
    public var bufferedBytes: Int { state.withLock { $0.buffered } }

    /// Whether the client is gone or the stream has ended.
    public var isClosed: Bool { state.withLock { $0.isClosed } }

    var bytesSent: Int { state.withLock { $0.sent } }

    /// Whether the connection is over: the stream is listed nowhere, and may not be.
    var isReleased: Bool { state.withLock { $0.isReleased } }

    /// For `StreamRegistry`: the stream is being listed at `proposed`. Where it is listed (its
    /// first listing, kept for life), or nil once its connection is over.
    func list(at proposed: StreamRegistry.Listing) -> StreamRegistry.Listing? {
        state.withLock { $0.list(at: proposed) }
    }

    /// libmicrohttpd asks for up to `capacity` bytes, on `connection`'s thread (nil: a stream
    /// with no connection, read by a test). With nothing buffered the connection is suspended and
    /// 0 returned, the pattern libmicrohttpd prescribes against busy polling.
    func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int, suspending connection: OpaquePointer?) -> Int {
        // Passed in as an address: the concurrency checker would otherwise tie libmicrohttpd's
        // buffer to the locked state, though the buffer is only written during this call.
        let address = UInt(bitPattern: buffer)
        let action = state.withLock {
            $0.read(
                into: UnsafeMutableRawBufferPointer(
                    start: UnsafeMutableRawPointer(bitPattern: address), count: capacity))
        }
        switch action {
        case .wrote(let count):
            return count
        case .endOfStream:
            return -1  // MHD_CONTENT_READER_END_OF_STREAM
        case .suspend:
            guard let connection else {
                _ = state.withLock { $0.suspendCompleted(socket: -1) }
                return 0
            }
            // No peek at the socket for a client that has gone: it would be a system call per
            // event per stream, for what the once-a-second sweep and the next write both find.
            let socket = ClientSocket.descriptor(of: connection)
            MHD_suspend_connection(connection)
            if state.withLock({ $0.suspendCompleted(socket: socket) }) == .resume {
                MHD_resume_connection(connection)
            }
            return 0
        }
    }

    /// For the server's sweep (`HTTPServer.reapDisconnected`): the socket to look at, for a
    /// parked stream (nil: nothing to look at).
    func sweepProbe() -> Int32? {
        guard case .probe(let socket) = state.withLock({ $0.sweep() }) else { return nil }
        return socket
    }

    /// The sweep found the client behind `sweepProbe()`'s socket gone: ends the stream at once,
    /// unless it is no longer parked. Returns whether it ended it.
    func reapClientGone() -> Bool {
        guard state.withLock({ $0.clientGone() }) == .resume else { return false }
        resume()
        return true
    }

    /// The response is destroyed (or never made): the connection is over, and the stream leaves
    /// its registry.
    func released() {
        if let listing = state.withLock({ $0.released() }) { listing.registry.unlist(self, shard: listing.shard) }
    }

    /// What a stream without a connection has been sent and not yet taken, and whether it has ended.
    public func takeBuffered() -> (bytes: [UInt8], ended: Bool) {
        var taken: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 4096)
        while true {
            let count = chunk.withUnsafeMutableBufferPointer { buffer in
                buffer.baseAddress!.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                    read(into: $0, capacity: buffer.count, suspending: nil)
                }
            }
            if count < 0 { return (taken, true) }
            if count == 0 { return (taken, false) }
            taken += chunk[0..<count]
        }
    }
}
