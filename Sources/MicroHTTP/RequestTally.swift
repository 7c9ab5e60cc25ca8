import Platform

/// What the server counts and logs of one request, kept by its `RequestContext` on the
/// connection's thread: when it began, what it was labelled (`RequestLabels`, returned by the
/// handler), and what was queued as its answer. It feeds the request durations as the answer is
/// queued and the access record as the request completes.
struct RequestTally {
    /// When the request line arrived, for the access record and the durations (0 with neither).
    let began: Int64
    /// The method's place in `RequestDurations.methods`, found once from the request line
    /// (passing the method's string to the count would retain it).
    var method = RequestDurations.methodCount - 1
    /// What the handler returned; none for a request it never saw.
    var labels = RequestLabels()
    /// What was queued, for the access record; a stream's bytes are counted by the stream.
    var sentStatus = 0
    var sentBytes = 0

    init(began: Int64) {
        self.began = began
    }

    /// The answer of a request that began at `began` has just been queued: its duration is
    /// counted (see `RequestDurations`).
    @inline(__always)
    static func answerQueued(on server: HTTPServer, began: Int64, route: Int, method: Int, shard: Int) {
        // Optional chaining, not `guard let`: no second reference to the shared object, and no
        // clock read without it.
        server.durations?.record(MonotonicClock.nanoseconds() - began, route: route, method: method, shard: shard)
    }

    /// The access record of the finished request.
    func record(method: String, path: String, status: Int, bytes: Int, remoteAddress: String) -> AccessRecord {
        AccessRecord(
            method: method, path: path, status: status, bytes: bytes,
            microseconds: (MonotonicClock.nanoseconds() - began) / 1000, remoteAddress: remoteAddress,
            principal: labels.principal)
    }
}
