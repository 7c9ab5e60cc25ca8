internal import CMicroHTTPD
import Synchronization

/// How a request served by libmicrohttpd reads its headers and its peer's address: the common
/// headers from where the head check found them, the rest from libmicrohttpd, while the
/// connection's request is alive.
struct RequestHeaders {
    /// The common headers, found when the head was judged; until then, none.
    private var known: KnownHeaders?
    /// The peer's address as text, looked up once.
    private(set) var address = ""

    mutating func headJudged(_ found: overlayd_known_headers) {
        known = KnownHeaders(found)
    }

    /// The request is over: its headers are gone; the peer's address, the connection's, stays.
    @inline(__always)
    mutating func nextRequest() {
        known = nil
    }

    /// The first header with this name (libmicrohttpd compares names without regard to case): its
    /// bytes up to any NUL, or nil. Headers of a request refused before its head was judged are
    /// all looked up in libmicrohttpd.
    func lookUp<Result>(
        _ name: String, on connection: OpaquePointer, _ body: (UnsafeRawBufferPointer?) -> Result
    )
        -> Result
    {
        if let known, let value = known.value(named: name) { return body(value) }
        guard let value = withCString(name, { MHD_lookup_connection_value(connection, .HEADER_KIND, $0) }) else {
            return body(nil)
        }
        return body(UnsafeRawBufferPointer(start: value, count: strlen(value)))
    }

    /// The peer's address, looked up the first time (the connection must be alive).
    mutating func address(of connection: OpaquePointer) -> String {
        if address.isEmpty {
            address = withUnsafeTemporaryAllocation(of: CChar.self, capacity: 64) { buffer in
                let count = overlayd_mhd_client_address(connection, buffer.baseAddress!, buffer.count)
                return String(decoding: UnsafeRawBufferPointer(start: buffer.baseAddress, count: count), as: UTF8.self)
            }
        }
        return address
    }
}
