#if canImport(Glibc)
    import Glibc
#endif

/// A request's headers and peer address as its `HTTPRequest` reads them from the live
/// connection: a narrow window on the request's `RequestContext`, open only while the handler
/// runs (its lookups answer nil, and the address "", before and after). The content coding, found
/// when the head was judged, is carried as a value.
///
/// Unchecked, with its rule checked: the context's header fields are written before the window
/// opens (a releasing store of `lookupOpen`) and not again while it is open; a read checks
/// `lookupOpen` first (acquiring), and in debug builds that it is on the connection's thread,
/// where the handler runs (`ConnectionHeadersTests` keeps a request past its handler).
struct ConnectionHeaders: @unchecked Sendable {
    private let context: RequestContext
    let contentCoding: String?

    init(_ context: RequestContext) {
        self.context = context
        contentCoding = context.contentCoding
    }

    /// The first header with this name, while the handler runs; nil before and after.
    func withHeader<Result>(_ name: String, _ body: (UnsafeRawBufferPointer?) -> Result) -> Result {
        checkThread()
        return context.withHeader(name, body)
    }

    /// The peer's address while the handler runs ("" before and after).
    var address: String {
        checkThread()
        return context.lookedUpAddress
    }

    @inline(__always)
    private func checkThread() {
        #if DEBUG
            if context.lookupOpen.load(ordering: .acquiring) {
                precondition(
                    pthread_equal(context.thread, pthread_self()) != 0,
                    "a request's headers are read on its connection's thread, while its handler runs")
            }
        #endif
    }
}
