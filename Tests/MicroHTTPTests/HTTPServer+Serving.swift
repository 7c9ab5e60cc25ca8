import MicroHTTP

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
}
