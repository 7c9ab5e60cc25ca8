import OverlayService
import ServiceTestSupport
import TestSupport

// What the publishing tests do to a live server: post to a named channel and read its version.

extension LiveServer {
    /// Posts a message to `channel` and returns the status.
    @discardableResult
    func post(_ channel: String, _ text: String, immediate: Bool = true) throws -> Int {
        try post(
            "/channels/\(channel)/messages",
            json: #"{"text": "\#(text)", "kind": "sending", "immediate": \#(immediate)}"#
        ).status
    }

    func overlay(_ channel: String) throws -> HTTPReply { try get("/channels/\(channel)/overlay") }

    /// The version of `channel`'s overlay; an error when there is none.
    func version(of channel: String) throws -> Int {
        let reply = try overlay(channel)
        guard let version = reply.json["version"]?.int else { throw TestSupportError("no version in \(reply.text)") }
        return version
    }
}
