import MicroHTTP
import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// What the webhook suites share: the fixtures (documented bodies of the tools) and a delivery
/// made through the real dispatcher.
enum Webhook {
    static let directory = Repository.path("Tests/OverlayServiceTests/Fixtures/Webhooks")

    /// The fixture `name`'s text; an error if it is missing.
    static func fixture(_ name: String) throws -> String {
        let text = TemporaryDirectory.read(directory + "/" + name)
        guard !text.isEmpty else { throw TestSupportError("no fixture \(directory)/\(name)") }
        return text
    }

    /// `POST /channels/{channel}/messages?template=…` with `body`.
    static func deliver(
        _ service: OverlayService, _ template: String, _ body: String, channel: String = "default",
        headers: [Header] = [], query: [QueryItem] = []
    ) -> HTTPResponse {
        service.answer(
            HTTPRequest(
                "POST", "/channels/\(channel)/messages", query: [QueryItem(name: "template", value: template)] + query,
                headers: headers, body: body))
    }

    /// The answer's messages.
    static func messages(_ response: HTTPResponse) -> [JSONValue] {
        response.json["messages"]?.array ?? []
    }

    /// The code and field of an error answer.
    static func error(_ response: HTTPResponse) -> (status: Int, code: String?, field: String?) {
        let error = response.json["error"]
        return (response.status, error?["code"]?.string, error?["field"]?.string)
    }

    /// The overlay's queued count and version, to show that a refusal changed nothing.
    static func state(_ service: OverlayService, channel: String = "default") -> JSONValue {
        service.answer(HTTPRequest("GET", "/channels/\(channel)/messages")).json
    }
}
