internal import CMicroHTTPD

/// A request's body as it arrives, within the server's limit: past the limit the rest is read and
/// dropped, up to `HTTPServer.discardLimit` more, so that the 413 can be sent once it ends.
struct RequestBody {
    private(set) var bytes: [UInt8] = []
    /// The body passed the limit: nothing of it is kept, and the request is answered 413.
    private(set) var isTooLarge = false
    /// Bytes of an over-long body read and dropped so far.
    private var discarded = 0
    /// Where a chunked body starts in libmicrohttpd's buffer, for reading its chunk sizes.
    private var chunkedStart: UnsafePointer<CChar>?

    /// The head said the body is chunked, and where it starts.
    mutating func chunked(from start: UnsafePointer<CChar>?) {
        chunkedStart = start
    }

    /// A piece of the body; false when the connection is to be cut off instead.
    mutating func take(_ data: UnsafePointer<CChar>?, count: Int, limit: Int) -> Bool {
        if let chunkedStart {
            // MHD 0.9.75: no answer can be queued in the middle of a body, so a chunk announcing
            // more than would ever be read (the limit, then the drain below) is cut off at once,
            // a close rather than a 413, instead of after the limit's worth arrives.
            let announced = overlayd_chunk_size_before(chunkedStart, data)
            if announced > limit + HTTPServer.discardLimit { return false }
        }
        if isTooLarge {
            // Reading the rest is what lets the 413 be sent, but not forever: a client that
            // keeps sending well past the limit is cut off.
            discarded += count
            return discarded <= HTTPServer.discardLimit
        }
        if bytes.count + count > limit {
            // MHD 0.9.75: a response queued mid-body (a chunked upload) is refused, and the client
            // would see the connection close without an answer: the rest is dropped and 413
            // answered when it ends.
            refuse()
            return true
        }
        if let data {
            data.withMemoryRebound(to: UInt8.self, capacity: count) {
                bytes.append(contentsOf: UnsafeBufferPointer(start: $0, count: count))
            }
        }
        return true
    }

    /// The request is answered before its body: whatever still comes is dropped.
    mutating func refuse() {
        isTooLarge = true
        bytes = []
    }
}
