import MicroHTTP
import TestSupport

extension HTTPServer {
    /// A server whose handler labels nothing: every request counts under route 0, with no
    /// principal, as these tests count no routes.
    static func serving(
        _ options: HTTPServerOptions, responseCounts: ResponseCounts? = nil, durations: RequestDurations? = nil,
        _ handler: @escaping @Sendable (HTTPRequest, HTTPResponder) -> Void
    ) throws -> HTTPServer {
        try HTTPServer(
            options: options,
            handler: { request, responder in
                handler(request, responder)
                return RequestLabels()
            }, responseCounts: responseCounts, durations: durations)
    }

    /// What a one-thread server on a port of its own answers to `requests`, sent as they are on
    /// one connection and read until the server closes it (the last should say `Connection:
    /// close`, or be refused).
    static func exchange(
        _ requests: String, configure: (inout HTTPServerOptions) -> Void = { _ in },
        _ handler: @escaping @Sendable (HTTPRequest, HTTPResponder) -> Void
    ) throws -> String {
        var options = HTTPServerOptions()
        options.port = 0
        options.threads = 1
        configure(&options)
        let server = try serving(options, handler)
        defer { server.stop(grace: 0) }
        let client = try RawClient(port: server.port)
        try client.send(requests)
        return String(decoding: client.receive(), as: UTF8.self)
    }
}
