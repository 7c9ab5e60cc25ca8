private import CMicroHTTPD
import Synchronization

#if canImport(Glibc)
    import Glibc
#endif

/// A response body written piece by piece while the connection stays open (Server-Sent Events).
///
/// `send` may be called from any thread. Pieces wait in a bounded buffer: a client that reads
/// too slowly loses the pieces it has not started to receive, never the framing of the one it is
/// receiving, and the latest piece is always kept. While the buffer is empty the connection is
/// suspended, so an idle stream costs no thread and no polling.
public final class HTTPStream: @unchecked Sendable {
    private let connection: OpaquePointer

    private struct State {
        var pieces: [[UInt8]] = []
        /// Bytes of `pieces[0]` already handed to libmicrohttpd.
        var offset = 0
        var buffered = 0
        var suspended = false
        /// The writer asked to end the response once the buffer is drained.
        var ending = false
        /// libmicrohttpd released the response: the connection is gone; never touch it again.
        var released = false
        var sent = 0
        var closeHandlers: [@Sendable () -> Void] = []
    }

    private let state = Mutex(State())

    init(connection: OpaquePointer) {
        self.connection = connection
    }

    /// Queues `piece` to be sent. When the buffer would hold more than `limit` bytes, the pieces
    /// not yet started are dropped first. Returns false once the stream has ended or its client
    /// has gone, so that the writer can forget it.
    @discardableResult
    public func send(_ piece: [UInt8], limit: Int = 64 * 1024) -> Bool {
        let (accepted, resume) = state.withLock { state -> (Bool, Bool) in
            guard !state.released && !state.ending else { return (false, false) }
            if state.buffered + piece.count > limit {
                // Drop what has not started; a piece partly handed out must still go out whole.
                if state.offset > 0 {
                    state.pieces.removeSubrange(1...)
                    state.buffered = state.pieces[0].count - state.offset
                } else {
                    state.pieces.removeAll()
                    state.buffered = 0
                }
            }
            state.pieces.append(piece)
            state.buffered += piece.count
            let resume = state.suspended
            state.suspended = false
            return (true, resume)
        }
        if resume { MHD_resume_connection(connection) }
        return accepted
    }

    /// Ends the response after what is buffered has gone out.
    public func end() {
        let resume = state.withLock { state -> Bool in
            guard !state.released else { return false }
            state.ending = true
            let resume = state.suspended
            state.suspended = false
            return resume
        }
        if resume { MHD_resume_connection(connection) }
    }

    /// Calls `handler` once when the stream is over (ended, or its client gone); at once if it is.
    public func onClose(_ handler: @escaping @Sendable () -> Void) {
        let closed = state.withLock { state -> Bool in
            if state.released { return true }
            state.closeHandlers.append(handler)
            return false
        }
        if closed { handler() }
    }

    /// Bytes waiting to be sent.
    public var bufferedBytes: Int { state.withLock { $0.buffered } }

    /// Whether the client is gone or the stream has ended.
    public var isClosed: Bool { state.withLock { $0.released || $0.ending } }

    var bytesSent: Int { state.withLock { $0.sent } }

    /// libmicrohttpd asks for up to `capacity` bytes. With nothing buffered the connection is
    /// suspended (under the lock, so a concurrent `send` either sees it and resumes, or has already
    /// added its piece) and 0 returned, the pattern libmicrohttpd prescribes against busy polling.
    func read(into buffer: UnsafeMutablePointer<CChar>, capacity: Int) -> Int {
        state.withLock { state -> Int in
            guard !state.pieces.isEmpty else {
                if state.ending { return -1 }  // MHD_CONTENT_READER_END_OF_STREAM
                // libmicrohttpd does not watch a suspended connection, and the first write after a
                // client hung up still succeeds: without this check a gone client would only be
                // found by a second write (the next event or heartbeat but one).
                if peerHasClosed(connection) { return -2 }  // MHD_CONTENT_READER_END_WITH_ERROR: close it
                MHD_suspend_connection(connection)
                state.suspended = true
                return 0
            }
            var written = 0
            while written < capacity, !state.pieces.isEmpty {
                let piece = state.pieces[0]
                let count = min(capacity - written, piece.count - state.offset)
                piece.withUnsafeBytes { bytes in
                    UnsafeMutableRawPointer(buffer + written).copyMemory(
                        from: bytes.baseAddress! + state.offset, byteCount: count)
                }
                written += count
                state.offset += count
                if state.offset == piece.count {
                    state.pieces.removeFirst()
                    state.offset = 0
                }
            }
            state.buffered -= written
            state.sent += written
            return written
        }
    }

    /// For the server's sweep (`HTTPServer.reapDisconnected`): a parked stream whose client has
    /// gone is woken to end at once. Returns whether it was.
    func reapIfClientGone() -> Bool {
        let resume = state.withLock { state -> Bool in
            // Suspended: libmicrohttpd is not touching the connection, so its socket is ours to peek.
            guard state.suspended, !state.released, peerHasClosed(connection) else { return false }
            state.suspended = false
            state.ending = true
            state.pieces = []
            state.buffered = 0
            return true
        }
        if resume { MHD_resume_connection(connection) }
        return resume
    }

    /// The response is destroyed: the connection is over.
    func released() {
        let handlers = state.withLock { state -> [@Sendable () -> Void] in
            state.released = true
            state.pieces = []
            state.buffered = 0
            defer { state.closeHandlers = [] }
            return state.closeHandlers
        }
        for handler in handlers { handler() }
    }
}
