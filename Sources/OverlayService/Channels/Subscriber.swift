import MicroHTTP
import Platform

/// An event stream and the last version it was sent.
///
/// Two changes can finish on two threads in either order; a stream must still see versions only
/// grow, so delivery checks and sends under this small lock. `HTTPStream.send` only appends to a
/// buffer and may wake the connection; it never waits.
final class Subscriber: Sendable {
    let stream: HTTPStream
    private let lastSent: Lock<UInt64?>

    init(stream: HTTPStream, lastSent: UInt64?) {
        self.stream = stream
        self.lastSent = Lock(lastSent)
    }

    func deliver(_ version: UInt64, _ event: [UInt8], limit: Int) {
        lastSent.withLock { last in
            if let last, version <= last { return }
            last = version
            stream.send(event, limit: limit)
        }
    }

    /// Only an idle stream needs a heartbeat. On a backed-up one it would be the newest piece, and
    /// the bounded buffer keeps the newest: it would push out the event the slow reader has yet to
    /// receive. Under the lock, so that no event is delivered between the look and the send.
    func heartbeat(_ comment: [UInt8], limit: Int) {
        lastSent.withLock { _ in
            guard stream.bufferedBytes == 0 else { return }
            stream.send(comment, limit: limit)
        }
    }
}
