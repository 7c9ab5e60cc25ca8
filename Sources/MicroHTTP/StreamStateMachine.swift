/// A streamed body's buffer and its connection's state as a value: each event returns what the
/// driver must do.
///
/// `HTTPStream` keeps it under its lock and makes the libmicrohttpd calls the actions ask for
/// after releasing it. Writers (`send`, `end`) may be on any thread; libmicrohttpd's thread for
/// the connection pulls bytes (`read`) and suspends the connection when there are none. A piece
/// or an end that arrives while the suspend call is being made (`suspending`) is remembered, and
/// the `suspendCompleted` that follows the call asks for the resume: a resume never comes before
/// its suspend.
///
/// It also keeps where the stream is listed (`StreamRegistry`), from its first listing to its
/// release, which hands the listing back to be taken off: generic over it so that its tests can
/// use plain values.
struct StreamStateMachine<Listing> {
    enum Connection: Equatable {
        /// libmicrohttpd is sending, or will ask for bytes again.
        case active
        /// The reader found nothing and the connection is being suspended; `wake` when a piece or
        /// the end came meanwhile.
        case suspending(wake: Bool)
        /// Suspended until a piece or the end comes.
        case suspended
        /// libmicrohttpd released the response: the connection is gone.
        case released
    }

    enum SendAction: Equatable {
        /// Buffered; the connection is awake or will be.
        case queued
        /// Buffered; resume the suspended connection.
        case resume
        /// Not buffered, and nothing to do: a piece numbered no higher than one sent before, or a
        /// keep-alive for a stream with bytes still waiting.
        case skipped
        /// The stream has ended or its client has gone: forget it.
        case rejected
    }

    enum Action: Equatable {
        case none
        case resume
    }

    enum ReadAction: Equatable {
        /// This many bytes were copied out.
        case wrote(Int)
        /// Everything has gone out and the writer ended the stream.
        case endOfStream
        /// Nothing to send: suspend the connection and report `suspendCompleted`. A client that
        /// has gone meanwhile is found by the sweep (`sweep`, `clientGone`) or the next write.
        case suspend
    }

    enum SweepAction: Equatable {
        case none
        /// Peek at this socket; report `clientGone` if its client has left.
        case probe(socket: Int32)
    }

    /// The piece being sent, kept in the state itself: a stream of events mostly holds one piece
    /// at a time, and an array for it alone would be one more object, cold in memory, for every
    /// event a fan-out adds to thousands of streams.
    private var first: [UInt8]?
    /// The pieces after `first`.
    private var more: [[UInt8]] = []
    /// Bytes of `first` already handed out.
    private var offset = 0
    /// Bytes waiting to be sent.
    private(set) var buffered = 0
    /// Bytes handed to libmicrohttpd.
    private(set) var sent = 0
    private(set) var connection = Connection.active
    /// The writer asked to end the response once the buffer is drained.
    private(set) var ending = false
    /// The connection's descriptor, known once it was first suspended (for the sweep's peek).
    private var socket: Int32 = -1
    /// Where the stream is listed, from its first listing until its release takes it.
    private(set) var listing: Listing?
    /// The highest number of a piece queued (`send(_:number:limit:)`) or skipped (`skip(through:)`).
    private(set) var lastNumber: UInt64?

    /// Whether the client is gone or the stream has ended.
    var isClosed: Bool { connection == .released || ending }

    /// Whether the connection is over (nothing may list the stream any more).
    var isReleased: Bool { connection == .released }

    /// Queues `piece`. When the buffer would hold more than `limit` bytes, the pieces not yet
    /// started are dropped first; a piece partly handed out still goes out whole, and the newest
    /// is always kept.
    mutating func send(_ piece: [UInt8], limit: Int) -> SendAction {
        guard connection != .released && !ending else { return .rejected }
        if buffered + piece.count > limit {
            more.removeAll()
            if offset > 0, let first {
                buffered = first.count - offset
            } else {
                first = nil
                buffered = 0
            }
        }
        if first == nil { first = piece } else { more.append(piece) }
        buffered += piece.count
        return wake() == .resume ? .resume : .queued
    }

    /// Queues `piece`, numbered `number`, unless a piece numbered as high was queued or skipped
    /// before: writers on two threads, in either order, still give the client growing numbers.
    mutating func send(_ piece: [UInt8], number: UInt64, limit: Int) -> SendAction {
        guard connection != .released && !ending else { return .rejected }
        if let lastNumber, number <= lastNumber { return .skipped }
        lastNumber = number
        return send(piece, limit: limit)
    }

    /// The client has the pieces numbered up to `number`: none of them is queued from now on.
    mutating func skip(through number: UInt64) {
        lastNumber = max(lastNumber ?? number, number)
    }

    /// Queues `piece` only if nothing is waiting to be sent: a keep-alive. On a backed-up stream it
    /// would be the newest piece, which the bounded buffer keeps, pushing out what the slow client
    /// has yet to receive.
    mutating func sendIfIdle(_ piece: [UInt8], limit: Int) -> SendAction {
        guard connection != .released && !ending else { return .rejected }
        guard buffered == 0 else { return .skipped }
        return send(piece, limit: limit)
    }

    /// The writer ends the stream once what is buffered has gone out.
    mutating func end() -> Action {
        guard connection != .released else { return .none }
        ending = true
        return wake()
    }

    /// The stream is being listed at `proposed`: where it is listed (its first listing, kept for
    /// its life), or nil once its connection is over.
    mutating func list(at proposed: Listing) -> Listing? {
        guard connection != .released else { return nil }
        if let listing { return listing }
        listing = proposed
        return proposed
    }

    /// libmicrohttpd asks for up to `buffer.count` bytes.
    mutating func read(into buffer: UnsafeMutableRawBufferPointer) -> ReadAction {
        guard first != nil else {
            if ending || connection == .released { return .endOfStream }
            connection = .suspending(wake: false)
            return .suspend
        }
        var written = 0
        while written < buffer.count, let piece = first {
            let count = min(buffer.count - written, piece.count - offset)
            piece.withUnsafeBytes { bytes in
                (buffer.baseAddress! + written).copyMemory(from: bytes.baseAddress! + offset, byteCount: count)
            }
            written += count
            offset += count
            if offset == piece.count {
                first = more.isEmpty ? nil : more.removeFirst()
                offset = 0
            }
        }
        buffered -= written
        sent += written
        return .wrote(written)
    }

    /// The suspend call is done; `socket` is the connection's descriptor.
    mutating func suspendCompleted(socket: Int32) -> Action {
        guard case .suspending(let wake) = connection else { return .none }
        self.socket = socket
        connection = wake ? .active : .suspended
        return wake ? .resume : .none
    }

    /// The sweep looks for streams whose client has gone.
    func sweep() -> SweepAction {
        guard connection == .suspended, socket >= 0 else { return .none }
        return .probe(socket: socket)
    }

    /// The sweep's peek found the client gone: drop what is buffered and end at once. A stream
    /// still suspended now has not been closed since the peek (a closed connection is released,
    /// never suspended again), so the socket peeked at was its own.
    mutating func clientGone() -> Action {
        guard connection == .suspended else { return .none }
        ending = true
        first = nil
        more = []
        buffered = 0
        connection = .active
        return .resume
    }

    /// libmicrohttpd destroyed the response: the connection is over. Returns where the stream
    /// was listed, to be taken off there (once: nil afterwards).
    mutating func released() -> Listing? {
        connection = .released
        first = nil
        more = []
        buffered = 0
        defer { listing = nil }
        return listing
    }

    /// A piece or the end came: wake the connection if it sleeps, or tell the suspend in progress.
    private mutating func wake() -> Action {
        switch connection {
        case .suspended:
            connection = .active
            return .resume
        case .suspending:
            connection = .suspending(wake: true)
            return .none
        case .active, .released:
            return .none
        }
    }
}
