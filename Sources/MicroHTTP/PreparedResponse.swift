private import CMicroHTTPD

/// A response built once in libmicrohttpd and queued on many connections.
///
/// Unchecked: the pointer never changes after `init`, and libmicrohttpd locks a response's
/// reference count when several threads queue it at once.
final class PreparedResponse: @unchecked Sendable {
    let pointer: OpaquePointer

    init?(_ response: HTTPResponse) {
        let created = response.body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
        guard let created else { return nil }
        Header.add(response.headers, to: created)
        pointer = created
    }

    deinit {
        MHD_destroy_response(pointer)
    }
}
