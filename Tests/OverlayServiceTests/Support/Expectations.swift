import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

#if canImport(Glibc)
    import Glibc
#endif

// Checks shared by the HTTP tests: the error shape of MODEL §5, and the state a bad request must
// leave alone.

/// Expects an error answer of MODEL §5: `status`, `Content-Type: application/json; charset=utf-8`,
/// and a body that is exactly `{"error": {"code", "message"[, "field"]}}` with this `code` and
/// `field` (`nil`: no `field` member at all).
func expectError(
    _ response: HTTPReply, status: Int, code: String, field: String? = nil,
    sourceLocation: SourceLocation = #_sourceLocation
) {
    #expect(response.status == status, "body: \(response.text)", sourceLocation: sourceLocation)
    #expect(
        response.header("Content-Type") == "application/json; charset=utf-8", sourceLocation: sourceLocation)
    guard case .object(let top) = response.json, case .object(let error)? = top["error"] else {
        Issue.record("not an error body: \(response.text)", sourceLocation: sourceLocation)
        return
    }
    #expect(Array(top.keys) == ["error"], sourceLocation: sourceLocation)
    let expectedKeys: Set<String> = field == nil ? ["code", "message"] : ["code", "message", "field"]
    #expect(Set(error.keys) == expectedKeys, "body: \(response.text)", sourceLocation: sourceLocation)
    #expect(error["code"]?.string == code, "body: \(response.text)", sourceLocation: sourceLocation)
    #expect(error["message"]?.string?.isEmpty == false, sourceLocation: sourceLocation)
    #expect(error["field"]?.string == field, "body: \(response.text)", sourceLocation: sourceLocation)
}

/// What a request must not change: the overlay's version and queue, and the list of messages.
struct ObservableState: Equatable, CustomStringConvertible {
    var version: Int?
    var queued: Int?
    var phase: String?
    var now: Double?
    var messages: [UInt8]
    /// `GET /messages?state=scheduled`.
    var scheduled: [UInt8]

    var description: String {
        "version \(version ?? -1), queued \(queued ?? -1), phase \(phase ?? "?"), now \(now ?? -1), "
            + "messages \(String(decoding: messages, as: UTF8.self)), "
            + "scheduled \(String(decoding: scheduled, as: UTF8.self))"
    }
}

extension LiveServer {
    /// The state a reader sees; in manual-clock mode it changes only through writes.
    func observableState() throws -> ObservableState {
        let overlay = try get("/overlay")
        let messages = try get("/messages")
        return ObservableState(
            version: overlay.json["version"]?.int, queued: overlay.json["queued"]?.int,
            phase: overlay.json["phase"]?.string, now: overlay.json["now"]?.number, messages: messages.body,
            scheduled: try get("/messages?state=scheduled").body)
    }

    /// A server in manual-clock mode with two messages, one shown (1) and one queued (2), and the
    /// clock at 1 s, so that a bad request has a queue to corrupt.
    static func startedWithTwoMessages(configure: (inout ServiceConfiguration) -> Void = { _ in }) throws -> LiveServer
    {
        try LiveServer(configure: configure).prepared { live throws in
            #expect(try live.post("/messages", json: #"{"text": "first", "kind": "sending"}"#).status == 202)
            #expect(try live.post("/messages", json: #"{"text": "second"}"#).status == 202)
            #expect(try live.advance(1).status == 200)
        }
    }

    /// Expects that the server still answers and that its state is `before`.
    func expectUnchanged(since before: ObservableState, sourceLocation: SourceLocation = #_sourceLocation) throws {
        let health = try get("/healthz")
        #expect(health.status == 200, sourceLocation: sourceLocation)
        #expect(health.json["status"]?.string == "ok", sourceLocation: sourceLocation)
        let after = try observableState()
        #expect(after == before, sourceLocation: sourceLocation)
    }
}

/// The keys of a JSON text in the order they appear, depth first: what `JSONValue` (a dictionary)
/// cannot tell, and what MODEL §5 fixes for `/overlay`.
func orderedKeys(_ bytes: [UInt8]) -> [String] {
    var keys: [String] = []
    var index = 0
    while index < bytes.count {
        guard bytes[index] == UInt8(ascii: "\"") else {
            index += 1
            continue
        }
        var end = index + 1
        while end < bytes.count && bytes[end] != UInt8(ascii: "\"") {
            end += bytes[end] == UInt8(ascii: "\\") ? 2 : 1
        }
        var next = end + 1
        while next < bytes.count && [0x20, 0x0A, 0x0D, 0x09].contains(bytes[next]) { next += 1 }
        if next < bytes.count && bytes[next] == UInt8(ascii: ":") {
            keys.append(String(decoding: bytes[(index + 1)..<min(end, bytes.count)], as: UTF8.self))
        }
        index = end + 1
    }
    return keys
}

/// Every key of `GET /overlay`'s body in the order it is written, nested ones where they stand:
/// the order is part of the format (MODEL §5).
let overlayKeyOrder = [
    "version", "now", "phase", "orientation", "rotation", "device", "presentation", "frame", "x", "y", "width",
    "height", "contentOffset", "alpha", "message", "announcement", "announcementVersion", "label", "subtitle",
    "outgoing", "accessory", "pill", "style", "activity",
    "progressBar", "queued", "scheduled", "animation", "statusBar", "style", "hidden", "alpha", "offset", "frame",
    "x", "y",
    "width", "height", "animation", "styleFrom", "hiddenFrom", "held", "touch",
]
