internal import CMicroHTTPD

extension HTTPResponder {
    /// Starts fetching the memory `respond(_:)` reads and writes, for a caller about to answer
    /// many responders in turn (a fan-out): a parked responder's memory has gone cold while it
    /// waited, and fetching the next few while this one is answered overlaps those misses.
    ///
    /// Takes the responder's address rather than the responder: a reference passed in is retained
    /// and released around the call, and retaining writes the very line being fetched.
    public static func prefetch(at address: UnsafeRawPointer) {
        overlayd_prefetch_for_write(address)
    }
}
