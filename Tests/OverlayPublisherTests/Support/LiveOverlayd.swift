import OverlayService
import TestSupport

/// overlayd's server in this process on a free port, manual clock and ephemeral unless told.
final class LiveOverlayd: Sendable {
    let server: OverlayServer
    var port: Int { server.port }

    init(publish: String?, configure: (inout ServiceConfiguration) -> Void = { _ in }) throws {
        var configuration = ServiceConfiguration()
        configuration.port = 0
        configuration.clock = .manual
        configuration.accessLog = .off
        configuration.ephemeral = true
        configuration.writesPerSecond = 0
        configuration.publish = publish
        configure(&configuration)
        server = try OverlayServer(configuration: configuration)
    }

    deinit {
        server.stop(grace: 1)
    }

    func request(_ method: String, _ path: String, body: String? = nil) throws -> HTTPReply {
        try RawClient.request(
            method, path, port: port, headers: body == nil ? [] : [("Content-Type", "application/json")], body: body)
    }

    /// Posts a message to `channel` and returns the status.
    @discardableResult
    func post(_ channel: String, _ text: String, immediate: Bool = true) throws -> Int {
        try request(
            "POST", "/channels/\(channel)/messages",
            body: #"{"text": "\#(text)", "kind": "sending", "immediate": \#(immediate)}"#
        ).status
    }

    func overlay(_ channel: String) throws -> HTTPReply { try request("GET", "/channels/\(channel)/overlay") }

    func version(_ channel: String) throws -> Int {
        let body = try overlay(channel).body
        guard case .object(let members) = try JSONParser.parse(body), case .number(let version)? = members["version"]
        else { throw TestSupportError("no version in \(String(decoding: body, as: UTF8.self))") }
        return Int(version)
    }

    /// The value of one line of `/metrics`, such as `overlayd_publish_published_total`.
    func metric(_ name: String) throws -> Double? {
        let text = try request("GET", "/metrics").text
        for line in text.split(separator: "\n") where line.hasPrefix(name + " ") {
            return Double(line.dropFirst(name.count + 1))
        }
        return nil
    }
}

extension StreamBlock {
    /// The overlay version in the data (nchan's ids are its own, not versions).
    var overlayVersion: Int? { data.flatMap(version(ofJSON:)) }
}

/// The `version` of an overlay JSON text.
func version(ofJSON text: String) -> Int? {
    guard case .object(let members)? = try? JSONParser.parse(Array(text.utf8)),
        case .number(let version)? = members["version"]
    else { return nil }
    return Int(version)
}
