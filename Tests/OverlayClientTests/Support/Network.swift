import Foundation
import OverlayClient
import Testing

@testable import OverlayCommands

/// The transports the client is tested through: URLSession, as an app links it, and libcurl,
/// as `overlayd post` and `watch` run it.
enum Network: String, CaseIterable, Sendable, CustomTestStringConvertible {
    case urlSession
    case curl

    var testDescription: String { rawValue }

    /// A client of `url` through this transport.
    func client(
        _ url: URL, token: String? = nil, channel: String? = nil,
        configuration: OverlayClient.Configuration = OverlayClient.Configuration()
    ) -> OverlayClient {
        switch self {
        case .urlSession:
            OverlayClient(url: url, token: token, channel: channel, configuration: configuration)
        case .curl:
            OverlayClient(url: url, token: token, channel: channel, configuration: configuration) {
                CurlHTTPTransport()
            }
        }
    }
}
