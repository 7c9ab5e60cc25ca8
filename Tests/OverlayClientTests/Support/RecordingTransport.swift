import Foundation
import OverlayClient
import Platform

/// A transport that answers every request with one canned answer and keeps the requests: what
/// a call sends, byte for byte, without a server deciding what it meant.
final class RecordingTransport: HTTPTransport {
    private let answer: (HTTPResponseHead, Data)
    private let seen = Lock<[HTTPRequest]>([])

    init(status: Int = 200, body: String) {
        answer = (HTTPResponseHead(status: status, headers: ["Content-Type": "application/json"]), Data(body.utf8))
    }

    var requests: [HTTPRequest] { seen.withLock { $0 } }

    /// The last request's JSON body with its members sorted, to compare as text (the client's
    /// encoder keeps no order); "" without a body.
    func lastBody() throws -> String {
        guard let body = requests.last?.body else { return "" }
        let object = try JSONSerialization.jsonObject(with: body)
        return String(decoding: try JSONSerialization.data(withJSONObject: object, options: .sortedKeys), as: UTF8.self)
    }

    func perform(_ request: HTTPRequest) async throws -> (HTTPResponseHead, Data) {
        seen.withLock { $0.append(request) }
        return answer
    }

    func stream(_ request: HTTPRequest) -> AsyncThrowingStream<HTTPStreamPart, any Error> {
        AsyncThrowingStream { $0.finish(throwing: OverlayClientError.unreachable("not streamed here")) }
    }

    func close() {}
}
