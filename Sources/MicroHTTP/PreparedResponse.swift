private import CMicroHTTPD
import Synchronization

/// A response built once in libmicrohttpd and queued on many connections.
///
/// Built when it is first sent, with the sending server's `responseHeaders` added: a prepared
/// response belongs to one server (the first to send it).
final class PreparedResponse: Sendable {
    let headers: [Header]
    let body: [UInt8]
    /// Whether the built response carries the Date of its building (see `HTTPResponse.prepare`).
    let dated: Bool
    /// The libmicrohttpd response's address once built (0 before): read with one atomic load.
    private let address = Atomic<Int>(0)

    init(_ response: HTTPResponse, dated: Bool) {
        headers = response.headers
        body = response.body
        self.dated = dated
    }

    /// The built response, if it has been built.
    var built: OpaquePointer? { OpaquePointer(bitPattern: address.load(ordering: .acquiring)) }

    /// The built response, building it on the first call. Two threads that race here both build;
    /// one keeps its response and the other destroys its own.
    func pointer(adding serverHeaders: [Header]) -> OpaquePointer? {
        if let existing = built { return existing }
        let created = body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let created else { return nil }
        if dated { HTTPDate.add(to: created) }
        Header.add(headers, to: created)
        Header.add(serverHeaders, to: created)
        let (stored, winner) = address.compareExchange(
            expected: 0, desired: Int(bitPattern: created), ordering: .acquiringAndReleasing)
        if stored { return created }
        MHD_destroy_response(created)
        return OpaquePointer(bitPattern: winner)
    }

    deinit {
        if let pointer = built { MHD_destroy_response(pointer) }
    }
}
