import Foundation
// An app imports only this module: the client, its types and the transport protocol come with it.
@_exported import OverlayClientCore

extension OverlayClient {
    /// A client of the server at `url` (its base: `http://host:port`, or a prefix a proxy serves
    /// it under), sending `token` as a bearer token, on `channel` (nil: `default`), through
    /// URLSession.
    public convenience init(
        url: URL, token: String? = nil, channel: String? = nil, configuration: Configuration = Configuration()
    ) {
        self.init(url: url, token: token, channel: channel, configuration: configuration) { URLSessionTransport() }
    }
}
