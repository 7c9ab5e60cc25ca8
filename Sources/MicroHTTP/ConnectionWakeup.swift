internal import CMicroHTTPD

/// The one thing any thread may do to a libmicrohttpd connection: resume it once it was suspended
/// (`MHD_resume_connection` is safe from any thread under `MHD_ALLOW_SUSPEND_RESUME`).
///
/// Unchecked, and its rule is what the type offers: nothing but `resume()`; every other call on
/// the connection is made through the non-Sendable `RequestContext` on the connection's own
/// thread. When a resume may come is the state machines' rule (`ResponderStateMachine`,
/// `StreamStateMachine`: never before the suspend, never after the request completed), which
/// their tests check.
struct ConnectionWakeup: @unchecked Sendable {
    private let connection: OpaquePointer

    init(_ connection: OpaquePointer) {
        self.connection = connection
    }

    /// Wakes the suspended connection: its answer, a piece of its stream or its end is ready.
    @inline(__always)
    func resume() {
        MHD_resume_connection(connection)
    }
}
