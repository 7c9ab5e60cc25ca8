import MicroHTTP
import OverlayEngine
import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayPublisher
@testable import OverlayService

/// What a hostile client found in the third reliability round: dot-segment channel names, a
/// manual clock that stopped at its limit in silence, and request heads RFC 9112 rules on.
@Suite("Reliability round 3")
struct ReliabilityTests {
    /// `.` and `..` are no names: not as a channel in a path (which only a client that keeps dot
    /// segments can send), not in `?channel=`, not as a device. (A controller's name never goes
    /// into a path, and a store written before may hold one: `.` stays a controller name.)
    @Test func dotSegmentsAreNoNames() throws {
        try withLiveServer { live in
            for name in [".", ".."] {
                for (method, path) in [
                    ("POST", "/channels/\(name)/messages"), ("GET", "/channels/\(name)/overlay"),
                    ("GET", "/channels/\(name)"), ("GET", "/events?channel=\(name)"),
                ] {
                    let answer = try RawClient.request(
                        method, path, port: live.port, headers: [("Content-Type", "text/plain")],
                        body: method == "POST" ? "hi" : nil)
                    #expect(answer.status == 400, "\(method) \(path): \(answer.text)")
                    #expect(answer.text.contains("\"field\":\"channel\""), "\(method) \(path)")
                }
                #expect(!Name.isValid(name))
            }
            #expect(Name.isValid("..."))
            #expect(Name.isValid(".hidden"))
            #expect(try live.get("/channels").json["channels"]?.array?.count == 1)
            let devices = ConfigurationError.loading(
                file:
                    #"{"devices": {"..": {"width": 1, "height": 1, "statusBarHeight": 1}}}"#)
            #expect(devices?.key == "devices...", "the key path is devices + . + the name")
        }
    }

    /// The publisher puts a channel's name into its URL template as one path segment: what is
    /// not unreserved is percent-encoded, and a dot segment could not climb out.
    @Test func namesInThePublishTemplateStayInTheirSegment() {
        let configuration = PublisherConfiguration(urlTemplate: "http://sink/pub/{channel}/x")
        #expect(configuration.url(for: "blue-1.2_z") == "http://sink/pub/blue-1.2_z/x")
        #expect(configuration.url(for: "..") == "http://sink/pub/%2E%2E/x")
        #expect(configuration.url(for: ".") == "http://sink/pub/%2E/x")
        #expect(configuration.url(for: "a/b?c#d é") == "http://sink/pub/a%2Fb%3Fc%23d%20%C3%A9/x")
    }

    /// An advance the clock cannot count, with room for the longest deadline after it, is 422
    /// naming `advance` and moves nothing; up to that room it moves, and a message shown then
    /// still keeps its time.
    @Test func theManualClockRefusesToSaturate() throws {
        try withLiveServer { live in
            for _ in 0..<9 { #expect(try live.advance(1e9).status == 200) }
            let before = try #require(live.get("/clock").json["now"]?.number)
            let refused = try live.advance(1e9)
            expectError(refused, status: 422, code: "invalid_field", field: "advance")
            #expect(try live.get("/clock").json["now"]?.number == before)
            expectError(
                try live.post("/clock", json: #"{"to": 9.3e9}"#), status: 422, code: "invalid_field", field: "to")
            #expect(try live.post("/messages", json: #"{"text": "still timed", "kind": "sending"}"#).status == 202)
            #expect(try live.advance(1).status == 200)
            let shown = try live.get("/messages/1").json
            #expect(shown["state"]?.string == "showing")
            #expect(shown["endsAt"]?.number == before + 300.25, "sticky for 300 s after its 0.25 s slide-in")
            #expect(try live.advance(60).status == 200)
            #expect(try live.get("/messages/1").json["state"]?.string == "showing", "not ended at once")
        }
    }

    /// An HTTP/1.1 request must name its Host (RFC 9112 §3.2); HTTP/1.0 need not.
    @Test func http11WithoutHostIsRefused() throws {
        try withLiveServer { live in
            let without = try RawClient.exchange(
                port: live.port, send: Array("GET /healthz HTTP/1.1\r\nConnection: close\r\n\r\n".utf8))
            #expect(RawClient.status(of: without) == 400)
            let old = try RawClient.exchange(port: live.port, send: Array("GET /healthz HTTP/1.0\r\n\r\n".utf8))
            #expect(RawClient.status(of: old) == 200)
        }
    }

    /// A request target in absolute form is answered as its path, its authority standing for
    /// the Host, which the Host rules then judge.
    @Test func absoluteFormIsItsPath() throws {
        try withLiveServer { live throws in
            func status(_ target: String) throws -> Int? {
                RawClient.status(
                    of: try RawClient.exchange(
                        port: live.port,
                        send: Array("GET \(target) HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n".utf8)))
            }
            #expect(try status("http://127.0.0.1:\(live.port)/healthz") == 200)
            #expect(try status("HTTP://localhost:\(live.port)/overlay") == 200)
            #expect(try status("http://x/messages?limit=1") == 200)
            #expect(try status("http://127.0.0.1:\(live.port)") == 200, "an empty path is /")
            #expect(try status("http://attacker.example/overlay") == 403, "the authority, not Host, is judged")
            #expect(try status("http://127.0.0.1:\(live.port)/nope") == 404)
        }
    }

    /// A multipart boundary of one character, unquoted, is a boundary (RFC 2046 allows 1 to 70).
    @Test func oneCharacterBoundary() throws {
        try withLiveServer { live in
            let body = "--B\r\nContent-Disposition: form-data; name=\"text\"\r\n\r\nvia multipart\r\n--B--\r\n"
            for type in ["multipart/form-data; boundary=B", "multipart/form-data; boundary=\"B\""] {
                let posted = try live.request("POST", "/messages", headers: [("Content-Type", type)], body: body)
                #expect(posted.status == 202, "\(type): \(posted.text)")
                #expect(posted.json["text"]?.string == "via multipart")
            }
        }
    }
}
