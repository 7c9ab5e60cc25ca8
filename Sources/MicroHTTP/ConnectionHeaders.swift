#if canImport(Glibc)
    import Glibc
#endif

/// A request's headers and peer address as its `HTTPRequest` reads them from the live
/// connection: a narrow window on the request's `RequestContext`, open only while the handler
/// runs (its lookups answer nil, and the address "", before and after), and so is the content
/// coding found when the head was judged.
///
/// Unchecked, with its rule checked: the context's header fields are written before the window
/// opens for this request (a releasing store of its number in `window`) and not again while it is
/// open; a read checks `window` first (acquiring), so that a request kept past its handler, or
/// past its connection's next request, reads nothing; and in debug builds that it is on the
/// connection's thread, where the handler runs (`ConnectionHeadersTests` keeps a request past
/// its handler).
struct ConnectionHeaders: @unchecked Sendable {
    private let context: RequestContext
    /// The request's number on its connection (`RequestContext.number`).
    private let number: Int

    init(_ context: RequestContext) {
        self.context = context
        number = context.number
    }

    /// The body's content coding other than identity, while the handler runs (nil afterwards).
    var contentCoding: String? {
        checkThread()
        return context.window.load(ordering: .acquiring) == number ? context.contentCoding : nil
    }

    /// The first header with this name, while the handler runs; nil before and after.
    func withHeader<Result>(_ name: String, _ body: (UnsafeRawBufferPointer?) -> Result) -> Result {
        checkThread()
        return context.withHeader(name, of: number, body)
    }

    /// The peer's address while the handler runs ("" before and after).
    var address: String {
        checkThread()
        return context.address(of: number)
    }

    @inline(__always)
    private func checkThread() {
        #if DEBUG
            if context.window.load(ordering: .acquiring) == number {
                precondition(
                    pthread_equal(context.thread, pthread_self()) != 0,
                    "a request's headers are read on its connection's thread, while its handler runs")
            }
        #endif
    }
}
