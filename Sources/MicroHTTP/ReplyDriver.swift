internal import CMicroHTTPD

/// What the connection's thread does with its responder's machine (`ResponderStateMachine`):
/// the actions carried out on the connection, after the machine's lock is released. It queues an
/// answer (a response built for this connection, one built once and shared, or a stream that
/// libmicrohttpd pulls from, listed in the server's `StreamRegistry`), or suspends the connection
/// and lists the responder in the server's `ParkedRequests` until its answer comes. Kept in the `RequestContext`, on that thread only.
///
/// Its methods take the context and touch its state in short accesses, not as a `mutating`
/// call on `context.reply`: an access to a class's field held across calls is checked at run
/// time (`swift_beginAccess`) on every request.
struct ReplyDriver {
    /// Where the responder is listed in `HTTPServer.parked`, from its suspension to its answer.
    private var listing: ParkedRequests.Ticket?
    /// The stream being sent (it leaves the server's `streams` itself, when libmicrohttpd
    /// releases it).
    private var streamed: HTTPStream?

    /// Carries out `action` on the context's connection; false when libmicrohttpd refused it.
    static func perform(
        _ action: ResponderStateMachine<HTTPResponder.Reply>.Action, for context: RequestContext
    ) -> Bool {
        switch action {
        case .queue(let reply):
            let queued = enqueue(reply, for: context) == .YES
            // Field by field: the tally as a whole would be copied, its principal retained.
            let (began, route, method) = (context.tally.began, context.tally.labels.route, context.tally.method)
            context.withServer {
                RequestTally.answerQueued(on: $0, began: began, route: route, method: method, shard: context.shard)
            }
            return queued
        case .suspend:
            let connection = context.connection
            let listing = context.withServer { $0.parked.list(context.responder, shard: context.shard) }
            let socket = ClientSocket.descriptor(of: connection)
            context.reply.listing = listing
            MHD_suspend_connection(connection)
            if case .resume = context.responder.machine.withLock({ $0.suspendCompleted(socket: socket) }) {
                MHD_resume_connection(connection)
            }
            return true
        case .none, .runHandler, .resume, .rejectReply, .probe, .discard:
            return true
        }
    }

    /// libmicrohttpd is done with the request: takes it off the server's lists, and returns the
    /// status and body bytes that were sent. The driver is left clear for the connection's next
    /// request.
    static func finish(for context: RequestContext) -> (status: Int, bytes: Int) {
        unlist(context)
        let sent = (context.tally.sentStatus, context.tally.sentBytes)
        guard let stream = context.reply.streamed else { return sent }
        context.reply.streamed = nil
        return (sent.0, stream.bytesSent)
    }

    /// Takes the responder off `HTTPServer.parked`: it has its answer, or the request is over.
    private static func unlist(_ context: RequestContext) {
        guard let listing = context.reply.listing else { return }
        context.reply.listing = nil
        context.withServer { $0.parked.unlist(responder: listing) }
    }

    /// Queues `reply` on the connection, with the server's headers and those for this request's
    /// origin added.
    private static func enqueue(_ reply: HTTPResponder.Reply, for context: RequestContext) -> MHD_Result {
        if case .full(let response) = reply, let prepared = response.prepared {
            return enqueue(.prepared(status: response.status, prepared), for: context)
        }
        unlist(context)
        let connection = context.connection
        let perOrigin = Self.originHeaders(context)
        let status: Int
        let headers: [Header]
        let created: OpaquePointer?
        switch reply {
        case .prepared(let preparedStatus, let prepared):
            context.tally.sentStatus = preparedStatus
            context.tally.sentBytes = prepared.body.count
            // A prepared response is shared by every connection that sends it: headers for one
            // request's origin cannot go into it, so such an answer is built afresh. Built
            // already (the usual case), the server's shared header list is not even retained.
            if perOrigin.isEmpty,
                let pointer = prepared.built ?? prepared.pointer(adding: context.withServer { $0.responseHeaders })
            {
                // libmicrohttpd counts the connections using it; ours is released with the
                // PreparedResponse.
                return MHD_queue_response(connection, UInt32(preparedStatus), pointer)
            }
            (status, headers, created) = (preparedStatus, prepared.headers, Self.bufferResponse(prepared.body))
        case .full(let response):
            context.tally.sentStatus = response.status
            context.tally.sentBytes = response.body.count
            (status, headers, created) = (response.status, response.headers, Self.bufferResponse(response.body))
        case .stream(let streamStatus, let streamHeaders, let stream):
            context.tally.sentStatus = streamStatus
            // MHD 0.9.75: it sends a chunked body's last chunk ("0\r\n\r\n") even to HEAD, which a
            // keep-alive client reads as the start of the next response: HEAD gets the head alone,
            // and the stream is over before it began.
            if context.method == "HEAD" {
                stream.released()
                (status, headers, created) = (streamStatus, streamHeaders, Self.bufferResponse([]))
            } else {
                (status, headers, created) = (streamStatus, streamHeaders, streamResponse(stream, for: context))
            }
        }
        guard let created else { return .NO }
        Header.add(headers, to: created)
        Header.add(context.withServer { $0.responseHeaders }, to: created)
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
    /// (its `Source`, retained here) when the response is destroyed. Listed in the server's
    /// `streams` (unless its handler listed it there already) until that release, so that a stop
    /// or the sweep can end it.
    private static func streamResponse(_ stream: HTTPStream, for context: RequestContext) -> OpaquePointer? {
        let connection = context.connection
        context.reply.streamed = stream
        context.withServer { $0.streams.listIfAbsent(stream, shard: context.shard) }
        context.withServer { server in
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
                // libmicrohttpd holds the source (released below), so it is borrowed, as the hot
                // callbacks borrow theirs: about 200 instructions a stream event (bench/instructions
                // --only sse: 3,191 taking a reference, 2,992 borrowing; medians of six).
                Unmanaged<HTTPStream.Source>.fromOpaque(context!)._withUnsafeGuaranteedRef { source in
                    source.stream.read(into: buffer!, capacity: size, suspending: source.connection)
                }
            },
            Unmanaged.passRetained(HTTPStream.Source(stream, on: connection)).toOpaque(),
            { context in
                Unmanaged<HTTPStream.Source>.fromOpaque(context!).takeRetainedValue().stream.released()
            })
    }

    /// The server's headers for this request's `Origin` (none without one, or when none depend
    /// on it). Looked up when the answer is queued: the server's own refusals get them too. Under
    /// the default policy no header depends on the origin, and the request's headers are not read.
    private static func originHeaders(_ context: RequestContext) -> [Header] {
        context.withServer { server in
            guard server.variesByOrigin,
                let origin = context.headers.lookUp(
                    "Origin", on: context.connection, { $0.map { String(decoding: $0, as: UTF8.self) } }),
                let headersFor = server.originHeaders
            else { return [] }
            return headersFor(origin)
        }
    }
}
