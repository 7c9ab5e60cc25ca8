internal import CCurl
import OverlayClientCore
import Platform

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#endif

/// One request through libcurl, run on a thread of its own (curl blocks; the concurrency pool's
/// few threads must not), handing its head and body over as they arrive, and stoppable from any
/// thread.
// Safe to share: `api` is libcurl's table, written once before any exchange exists; the fetch is
// only reached under `state`'s lock (stop) or by the one thread that runs it.
final class CurlExchange: @unchecked Sendable {
    /// What the exchange hands over, on its thread.
    struct Handlers: Sendable {
        /// The head, once its last line came (after any 1xx answers).
        var head: @Sendable (HTTPResponseHead) -> Void
        /// Each piece of the body.
        var body: @Sendable (Data) -> Void
        /// The end: nil when the answer came whole, else why not.
        var end: @Sendable ((any Error)?) -> Void
    }

    private struct State {
        /// Whether the fetch was freed (after its run, or with the exchange).
        var freed = false
        var stopped = false
        var started = false
    }

    private let api: UnsafePointer<overlayd_curl_api>
    private let fetch: UnsafeMutablePointer<overlayd_curl_fetch>
    private let state = Lock(State())
    /// Where curl's callbacks go.
    private let sink: Sink

    /// libcurl's functions once loaded, or why it could not be loaded: loaded the first time a
    /// command makes a request, once (its global initialisation is not thread-safe everywhere).
    nonisolated(unsafe) private static let library: Result<UnsafePointer<overlayd_curl_api>, CurlUnavailable> = {
        let api = UnsafeMutablePointer<overlayd_curl_api>.allocate(capacity: 1)
        var error = [CChar](repeating: 0, count: 512)
        guard overlayd_curl_load(api, &error, error.count) == 0 else {
            api.deallocate()
            let reason = String(decoding: error.prefix { $0 != 0 }.map(UInt8.init), as: UTF8.self)
            return .failure(CurlUnavailable(description: "libcurl (libcurl.so.4) cannot be loaded: \(reason)"))
        }
        return .success(UnsafePointer(api))
    }()

    /// An exchange for `request`, not started; throws `CurlUnavailable` when libcurl cannot be
    /// loaded or cannot make a handle.
    init(_ request: HTTPRequest, _ handlers: Handlers) throws(CurlUnavailable) {
        let api = try Self.library.get()
        var list: UnsafeMutablePointer<curl_slist>? = nil
        // An empty `Expect:` keeps curl from waiting for a 100 Continue before a larger body.
        for line in request.headers.map({ "\($0.key): \($0.value)" }).sorted() + ["Expect:"] {
            guard let appended = api.pointee.slist_append(list, line) else {
                api.pointee.slist_free_all(list)
                throw CurlUnavailable(description: "libcurl cannot make a request")
            }
            list = appended
        }
        let sink = Sink(handlers)
        let context = Unmanaged.passUnretained(sink).toOpaque()
        let timeout = Int(min(max(request.timeout * 1000, 1), Double(Int32.max)))
        let empty: UInt8 = 0
        let fetch = (request.body ?? Data()).withUnsafeBytes { body in
            withUnsafePointer(to: empty) { empty in
                // An empty body is still a body (`Content-Length: 0`): curl takes NULL for none.
                let bytes = request.body == nil ? nil : body.baseAddress ?? UnsafeRawPointer(empty)
                return overlayd_curl_fetch_new(
                    api, request.url.absoluteString, request.method, list, bytes, body.count, timeout,
                    { data, length, context in
                        Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue().take(header: data, length)
                    },
                    { data, length, context in
                        Unmanaged<Sink>.fromOpaque(context!).takeUnretainedValue().take(body: data, length)
                    }, context)
            }
        }
        guard let fetch else {
            api.pointee.slist_free_all(list)
            throw CurlUnavailable(description: "libcurl cannot make a request")
        }
        self.api = api
        self.fetch = fetch
        self.sink = sink
    }

    deinit {
        // Not freed yet if it never ran: a running fetch's thread holds the exchange until then.
        if !state.withLock({ $0.freed }) { overlayd_curl_fetch_free(api, fetch) }
    }

    /// Starts the request on a thread of its own; the handlers are called there. Once only.
    func start() {
        let first = state.withLock { state in
            defer { state.started = true }
            return !state.started
        }
        guard first else { return }
        let started = detachThread { [self] in
            let code = overlayd_curl_fetch_run(api, fetch)
            let error = failure(code)
            // Freed under the lock, so that a stop from another thread never reaches a freed fetch.
            state.withLock { state in
                state.freed = true
                overlayd_curl_fetch_free(api, fetch)
            }
            sink.handlers.end(error)
        }
        if !started { sink.handlers.end(OverlayClientError.unreachable("no thread for the request")) }
    }

    /// Ends the request at once (or keeps it from starting); its end is a `CancellationError`.
    func stop() {
        state.withLock { state in
            state.stopped = true
            if !state.freed { overlayd_curl_fetch_stop(api, fetch) }
        }
    }

    /// The error a run's result stands for, or nil when the answer came whole.
    private func failure(_ code: CURLcode) -> (any Error)? {
        if code == CURLE_OK {
            // An answer cut before the end of its head is no answer.
            return sink.head.delivered ? nil : OverlayClientError.unreachable("no HTTP answer")
        }
        if state.withLock({ $0.stopped }) { return CancellationError() }
        if overlayd_curl_fetch_timed_out(fetch) != 0 || code == CURLE_OPERATION_TIMEDOUT {
            return OverlayClientError.timedOut
        }
        switch code {
        case CURLE_COULDNT_CONNECT where overlayd_curl_fetch_os_error(api, fetch) == Int(ECONNREFUSED):
            return OverlayClientError.unreachable("connection refused")
        case CURLE_COULDNT_RESOLVE_HOST:
            return OverlayClientError.unreachable("unknown host")
        case CURLE_GOT_NOTHING, CURLE_PARTIAL_FILE, CURLE_RECV_ERROR, CURLE_SEND_ERROR:
            return OverlayClientError.unreachable("connection lost")
        default:
            let detail = String(cString: overlayd_curl_fetch_error(fetch))
            let reason =
                detail.isEmpty
                ? api.pointee.easy_strerror(code).map { String(cString: $0) } ?? "curl error \(code)" : detail
            return OverlayClientError.unreachable(reason)
        }
    }
}

/// libcurl cannot be used: not an unreachable server, which the update stream would wait for and
/// try again, but the end of the command.
struct CurlUnavailable: Error, Hashable, Sendable, CustomStringConvertible {
    var description: String
}

/// Receives curl's callbacks, on the exchange's thread only.
// Safe to share: `head` is only touched by that thread.
private final class Sink: @unchecked Sendable {
    let handlers: CurlExchange.Handlers
    var head = HeadReader()

    init(_ handlers: CurlExchange.Handlers) {
        self.handlers = handlers
    }

    func take(header data: UnsafePointer<CChar>?, _ length: Int) -> Int {
        guard let data else { return length }
        let line = String(decoding: UnsafeRawBufferPointer(start: data, count: length), as: UTF8.self)
        if let complete = head.take(line) { handlers.head(complete) }
        return length
    }

    func take(body data: UnsafePointer<CChar>?, _ length: Int) -> Int {
        guard let data, length > 0 else { return length }
        handlers.body(Data(bytes: data, count: length))
        return length
    }
}

/// Runs `body` on a new detached thread; false when none could be made.
private func detachThread(_ body: @escaping @Sendable () -> Void) -> Bool {
    final class Box: Sendable {
        let body: @Sendable () -> Void
        init(_ body: @escaping @Sendable () -> Void) { self.body = body }
    }
    let box = Unmanaged.passRetained(Box(body)).toOpaque()
    var thread = pthread_t()
    let created = pthread_create(
        &thread, nil,
        { raw in
            Unmanaged<Box>.fromOpaque(raw!).takeRetainedValue().body()
            return nil
        }, box)
    guard created == 0 else {
        Unmanaged<Box>.fromOpaque(box).release()
        return false
    }
    pthread_detach(thread)
    return true
}
