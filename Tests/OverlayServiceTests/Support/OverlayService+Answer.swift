import MicroHTTP
import Testing

@testable import OverlayService

extension OverlayService {
    /// The answer to `request` through `handle`, the dispatch the server uses, with a responder
    /// that has no connection: a write waits for its commit; an event stream is its head and its
    /// first bytes. A long-poll still waiting fails the test.
    func answer(_ request: HTTPRequest, sourceLocation: SourceLocation = #_sourceLocation) -> HTTPResponse {
        guard let response = DetachedAnswer.handle(request, handle).response(waiting: 30) else {
            Issue.record("\(request.method) \(request.path) was not answered", sourceLocation: sourceLocation)
            return HTTPResponse(status: 0)
        }
        return response
    }
}
