internal import CMicroHTTPD
import Platform

// libmicrohttpd's calls into the server, all in one place. Each forwards to the request's
// `RequestContext`, its explicit context: the connection's, made when the connection starts and
// released when it closes, begun again by `requestLineArrived` (libmicrohttpd's URI log callback,
// the first call for every request) and cleared by `completed`, which libmicrohttpd makes for
// every request that got a context, however it ended.
extension HTTPServer {
    /// Points libmicrohttpd's callbacks at the server's methods below. Each is a closure that
    /// captures nothing (C takes it as a function pointer) and reaches the server through its
    /// context, unretained: the daemon never outlives the server.
    ///
    /// The hot three borrow the server (and `access` its request's context, which libmicrohttpd's
    /// slot holds retained) with `_withUnsafeGuaranteedRef` rather than `takeUnretainedValue()`,
    /// which retains and releases them around the call, on lines every pool thread shares. Kept
    /// for what it saves (callgrind of `bench/instructions`, 2026-12-06): about 330 of 27,590
    /// instructions per GET.
    static func installCallbacks(in settings: inout overlayd_mhd_options) {
        settings.handler = { context, connection, url, method, version, data, size, slot in
            // Every request has its context from its request line (`requestLineArrived`).
            guard let request = slot?.pointee else { return .NO }
            return Unmanaged<HTTPServer>.fromOpaque(context!)._withUnsafeGuaranteedRef {
                $0.access(
                    connection!, url: url, method: method, version: version, data: data, size: size!, context: request)
            }
        }
        settings.completed = { context, connection, slot, _ in
            Unmanaged<HTTPServer>.fromOpaque(context!)._withUnsafeGuaranteedRef {
                $0.completed(connection, context: slot)
            }
        }
        settings.request_line = { context, uri, connection in
            Unmanaged<HTTPServer>.fromOpaque(context!)._withUnsafeGuaranteedRef {
                $0.requestLineArrived(uri, connection!)
            }
        }
        settings.connection_notice = { context, connection, socket, notice in
            let server = Unmanaged<HTTPServer>.fromOpaque(context!).takeUnretainedValue()
            switch notice {
            case .CONNECTION_NOTIFY_STARTED:
                // The connection's request context, kept for its life and reused by each request.
                socket?.pointee = Unmanaged.passRetained(RequestContext(server: server, connection: connection!))
                    .toOpaque()
            case .CONNECTION_NOTIFY_CLOSED:
                if let kept = socket?.pointee {
                    socket?.pointee = nil
                    Unmanaged<RequestContext>.fromOpaque(kept).release()
                }
                server.acceptor.connectionClosed()
            default:
                break
            }
        }
    }

    /// The most query parameters a request may carry: overlayd reads a handful.
    static let maxQueryParameters = 32

    /// The request line has arrived, `uri` as sent (NUL-terminated, in the connection's read
    /// buffer). The query is kept as it is, to be decoded as form bodies are (`URLEncoded`), and
    /// cut from the buffer so that libmicrohttpd parses none of it.
    ///
    /// MHD 0.9.75: it parses every query parameter into the connection's small memory pool
    /// before any callback, and when the pool runs out it logs a 431 that it never sends.
    func requestLineArrived(_ uri: UnsafePointer<CChar>?, _ connection: OpaquePointer) -> UnsafeMutableRawPointer? {
        // The connection's context, made when it started (see `installCallbacks`); retained for
        // the request, so that it outlives a close that comes before the request's completion.
        guard let kept = overlayd_mhd_socket_context(connection) else { return nil }
        let request = Unmanaged<RequestContext>.fromOpaque(kept).takeUnretainedValue()
        request.begin()
        inFlight.add(1, shard: request.shard)
        if let uri, let mark = strchr(uri, Int32(UInt8(ascii: "?"))) {
            let query = UnsafeRawBufferPointer(start: mark + 1, count: strlen(mark + 1))
            request.rawQuery = Array(query)
            request.tooManyParameters = query.count { $0 == UInt8(ascii: "&") } >= Self.maxQueryParameters
            mark[1] = 0
        }
        return Unmanaged.passRetained(request).toOpaque()
    }

    /// Called by libmicrohttpd once when the request head has arrived, once per piece of body, and
    /// once at the end (size 0). The answer is given on that last call.
    ///
    /// MHD 0.9.75: an answer given on the first call closes the connection after it, so only a
    /// refusal is answered there.
    func access(
        _ connection: OpaquePointer, url: UnsafePointer<CChar>?, method: UnsafePointer<CChar>?,
        version: UnsafePointer<CChar>?, data: UnsafePointer<CChar>?, size: UnsafeMutablePointer<Int>,
        context: UnsafeMutableRawPointer
    ) -> MHD_Result {
        Unmanaged<RequestContext>.fromOpaque(context)._withUnsafeGuaranteedRef { request in
            guard request.started else { return headArrived(request, connection, url, method, version) }
            guard size.pointee > 0 else { return request.requestReceived() ? .YES : .NO }
            let count = size.pointee
            size.pointee = 0
            return request.bodyArrived(data, count: count) ? .YES : .NO
        }
    }

    /// The first call: the head is judged, and a request that cannot be served is refused.
    private func headArrived(
        _ request: RequestContext, _ connection: OpaquePointer, _ url: UnsafePointer<CChar>?,
        _ method: UnsafePointer<CChar>?, _ version: UnsafePointer<CChar>?
    ) -> MHD_Result {
        request.started = true
        // Labelled before it is stored: read back from the context, the string would be retained.
        let name = method.map { String(cString: $0) } ?? ""
        request.tally.method = RequestDurations.index(of: name)
        request.method = name
        let target = url.map { String(cString: $0) } ?? "/"
        if let (authority, path) = HTTPServer.absoluteForm(target) {
            request.authority = authority
            request.path = path
        } else {
            request.path = target
        }
        if isDraining {
            // MHD 0.9.75: answered on the first call, so the connection is closed after it.
            return request.refuse(.stopping) ? .YES : .NO
        }
        if request.tooManyParameters {
            return request.refuse(.malformed("more than \(Self.maxQueryParameters) query parameters"))
                ? .YES : .NO
        }
        let head = overlayd_mhd_check_head(connection, method, version, parsesInPlace ? 1 : 0)
        if let refusal = HTTPServer.refusal(head) {
            return request.refuse(refusal) ? .YES : .NO
        }
        let walk = HeaderWalk(of: connection)
        if let refusal = walk.refusal {
            return request.refuse(refusal) ? .YES : .NO
        }
        request.headJudged(head, contentCoding: walk.contentCoding)
        request.bodyLimit = maxBodyBytes
        if let headCheck {
            switch headCheck(RequestHead(request)) {
            case .proceed: break
            case .bodyLimit(let limit): request.bodyLimit = limit
            case .refuse(let response): return request.refuse(response: response) ? .YES : .NO
            }
        }
        if head.content_length > request.bodyLimit {
            return request.refuse(.bodyTooLarge(limit: request.bodyLimit)) ? .YES : .NO
        }
        return .YES
    }

    /// The authority and the path of a request target in absolute form (`http://host:8080/a`,
    /// which a server must accept: RFC 9112 §3.2.2), or nil for any other (`/a`).
    static func absoluteForm(_ target: String) -> (authority: String, path: String)? {
        guard target.utf8.first != UInt8(ascii: "/") else { return nil }
        let lowered = target.prefix(8).lowercased()
        let scheme = lowered.hasPrefix("http://") ? 7 : lowered.hasPrefix("https://") ? 8 : 0
        guard scheme > 0 else { return nil }
        let rest = target.dropFirst(scheme)
        let slash = rest.firstIndex(of: "/") ?? rest.endIndex
        let path = rest[slash...]
        return (String(rest[..<slash]), path.isEmpty ? "/" : String(path))
    }

    /// libmicrohttpd is done with the request: it is counted and recorded, and its context let go.
    func completed(_ connection: OpaquePointer?, context: UnsafeMutablePointer<UnsafeMutableRawPointer?>?) {
        guard let context, let existing = context.pointee else { return }
        context.pointee = nil
        let request = Unmanaged<RequestContext>.fromOpaque(existing).takeRetainedValue()
        let (status, bytes) = request.finish(connection)
        inFlight.add(-1, shard: request.shard)
        defer { request.clear() }
        // A request libmicrohttpd refused by itself before its head was in (a request line too
        // long for the connection's memory) is neither counted nor logged: libmicrohttpd answered it.
        guard request.started else { return }
        responseCounts?.count(status: status, shard: request.shard)
        observer?(request.record(status: status, bytes: bytes))
    }

    /// What is wrong with a request's head, if anything (RFC 9112), as the refusal to answer it
    /// with. Two lengths for one body (Content-Length headers that disagree, or one beside
    /// Transfer-Encoding) would let a proxy in front that read the other length see another
    /// request start in the body (request smuggling).
    ///
    /// MHD 0.9.75: it lets every one of these through (`overlayd_mhd_check_head` in shim.h); of
    /// two lengths it picks one and reads on.
    private static func refusal(_ head: overlayd_head) -> HTTPRefusal? {
        switch head.problem {
        case 0: return nil
        case Int32(OVERLAYD_HEAD_CONFLICTING_LENGTHS.rawValue):
            return .ambiguousFraming("conflicting Content-Length headers")
        case Int32(OVERLAYD_HEAD_LENGTH_AND_CODING.rawValue):
            return .ambiguousFraming("both Content-Length and Transfer-Encoding")
        case Int32(OVERLAYD_HEAD_UNKNOWN_CODING.rawValue):
            let coding = head.coding.map {
                String(decoding: UnsafeRawBufferPointer(start: $0, count: head.coding_size), as: UTF8.self)
            }
            return .unsupportedTransferCoding(coding ?? "")
        case Int32(OVERLAYD_HEAD_BAD_NAME.rawValue):
            return .malformed("a header name is not a token (whitespace before the colon?)")
        case Int32(OVERLAYD_HEAD_CONTROL_CHARACTER.rawValue):
            return .malformed("a header value holds a control character")
        case Int32(OVERLAYD_HEAD_BARE_LF.rawValue):
            return .malformed("a line ends with LF alone, not CR LF")
        case Int32(OVERLAYD_HEAD_NO_HOST.rawValue):
            return .malformed("an HTTP/1.1 request must name its Host")
        default:
            return .malformed("a header line holds a NUL")
        }
    }
}

extension overlayd_mhd_options {
    /// The server every callback is given.
    mutating func setContext(_ server: UnsafeMutableRawPointer) {
        handler_context = server
        completed_context = server
        request_line_context = server
        connection_notice_context = server
    }
}
