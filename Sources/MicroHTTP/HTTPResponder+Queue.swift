internal import CMicroHTTPD

// Handing an answer to libmicrohttpd: a response built for this connection, one built once and
// shared, or a stream it pulls from.
extension HTTPResponder {
    /// Queues `reply` on the connection, with the server's headers and those for this request's
    /// origin added.
    func enqueue(_ reply: Reply, on connection: OpaquePointer) -> MHD_Result {
        if case .full(let response) = reply, let prepared = response.prepared {
            return enqueue(.prepared(status: response.status, prepared), on: connection)
        }
        unlist()
        let perOrigin = originHeaders(connection)
        let status: Int
        let headers: [Header]
        let created: OpaquePointer?
        switch reply {
        case .prepared(let preparedStatus, let prepared):
            sentStatus = preparedStatus
            sentBytes = prepared.body.count
            // A prepared response is shared by every connection that sends it: headers for one
            // request's origin cannot go into it, so such an answer is built afresh. Built
            // already (the usual case), the server's shared header list is not even retained.
            if perOrigin.isEmpty,
                let pointer = prepared.built ?? prepared.pointer(adding: withServer { $0.responseHeaders })
            {
                // libmicrohttpd counts the connections using it; ours is released with the
                // PreparedResponse.
                return MHD_queue_response(connection, UInt32(preparedStatus), pointer)
            }
            (status, headers, created) = (preparedStatus, prepared.headers, Self.bufferResponse(prepared.body))
        case .full(let response):
            sentStatus = response.status
            sentBytes = response.body.count
            (status, headers, created) = (response.status, response.headers, Self.bufferResponse(response.body))
        case .stream(let streamStatus, let streamHeaders, let stream):
            sentStatus = streamStatus
            // MHD 0.9.75: it sends a chunked body's last chunk ("0\r\n\r\n") even to HEAD, which a
            // keep-alive client reads as the start of the next response: HEAD gets the head alone,
            // and the stream is over before it began.
            if method == "HEAD" {
                stream.released()
                (status, headers, created) = (streamStatus, streamHeaders, Self.bufferResponse([]))
            } else {
                (status, headers, created) = (streamStatus, streamHeaders, streamResponse(stream, on: connection))
            }
        }
        guard let created else { return .NO }
        Header.add(headers, to: created)
        Header.add(withServer { $0.responseHeaders }, to: created)
        Header.add(perOrigin, to: created)
        let result = MHD_queue_response(connection, UInt32(status), created)
        MHD_destroy_response(created)
        return result
    }

    private static func bufferResponse(_ body: [UInt8]) -> OpaquePointer? {
        body.withUnsafeBytes { bytes in
            MHD_create_response_from_buffer(
                bytes.count, UnsafeMutableRawPointer(mutating: bytes.baseAddress), .RESPMEM_MUST_COPY)
        }
    }

    /// A streamed body: libmicrohttpd pulls it through `HTTPStream.read`, and releases the stream
    /// (its retain, taken here) when the response is destroyed.
    private func streamResponse(_ stream: HTTPStream, on connection: OpaquePointer) -> OpaquePointer? {
        streamed = stream
        withServer { server in
            server.streams.withLock { $0[ObjectIdentifier(stream)] = stream }
            if server.streamSendBufferBytes > 0 {
                ClientSocket.limitSendBuffer(ClientSocket.descriptor(of: connection), to: server.streamSendBufferBytes)
            }
        }
        // The block is libmicrohttpd's own buffer per response, used only when the body is not
        // chunked (an HTTP/1.0 client); a chunked stream is written into the connection's pool.
        // 512 bytes rather than 4 KiB: every idle stream keeps one.
        return MHD_create_response_from_callback(
            UInt64.max, 512,
            { context, _, buffer, size in
                // libmicrohttpd holds the stream (released below).
                Unmanaged<HTTPStream>.fromOpaque(context!).takeUnretainedValue().read(into: buffer!, capacity: size)
            },
            Unmanaged.passRetained(stream).toOpaque(),
            { context in
                Unmanaged<HTTPStream>.fromOpaque(context!).takeRetainedValue().released()
            })
    }

    /// The server's headers for this request's `Origin` (none without one, or when none depend
    /// on it). Looked up when the answer is queued: the server's own refusals get them too. Under
    /// the default policy no header depends on the origin, and the request's headers are not read.
    private func originHeaders(_ connection: OpaquePointer) -> [Header] {
        withServer { server in
            guard server.variesByOrigin,
                let origin = headers.lookUp(
                    "Origin", on: connection, { $0.map { String(decoding: $0, as: UTF8.self) } }),
                let headersFor = server.originHeaders
            else { return [] }
            return headersFor(origin)
        }
    }
}
