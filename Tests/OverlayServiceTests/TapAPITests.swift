import MicroHTTP
import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// `POST /overlay/tap` (docs/MODEL.md §14), also under `/channels/{name}/`, through real HTTP with
/// the manual clock on the default iPad: a message with two actions posted at 0 is shown at 0.25
/// and its 3 s (`failed`) end at 3.25.
@Suite("Taps through the API (§14)")
struct TapAPITests {
    static let prefixes = ["", "/channels/tv"]
    /// A server with the message shown (visible from 0.25) and the clock at 1.
    static func shown(
        _ prefix: String = "", configure: (inout ServiceConfiguration) -> Void = { _ in }
    ) throws
        -> LiveServer
    {
        try LiveServer(configure: configure).prepared { live in
            let posted = try live.post("\(prefix)/messages", json: SampleMessage.withActions)
            #expect(posted.status == 202, "\(posted.text)")
            try live.advance(1)
        }
    }

    /// Every way to name the action, and none: each tap answers the message with its taps, one
    /// version each, and shows in the overlay's message; the message goes on to its own end.
    @Test(arguments: TapAPITests.prefixes)
    func tapsAreKept(_ prefix: String) throws {
        try withLiveServer(started: Self.shown(prefix)) { live in
            let version = try #require(try live.version("\(prefix)/overlay"))
            let taps: [(body: String?, headers: [(String, String)], action: JSONValue)] = [
                (#"{"action": "retry"}"#, [("Content-Type", "application/json")], .string("retry")),
                (nil, [], .null),
                ("action=mute", [FormBody.urlEncoded], .string("mute")),
                ("retry\n", [("Content-Type", "text/plain")], .string("retry")),
                (#"{"action": null}"#, [("Content-Type", "application/json")], .null),
                ("{}", [], .null),
            ]
            for (index, tap) in taps.enumerated() {
                let answer = try live.request("POST", "\(prefix)/overlay/tap", headers: tap.headers, body: tap.body)
                #expect(answer.status == 200, "\(answer.text)")
                #expect(orderedKeys(answer.body) == orderedKeys(try live.get("\(prefix)/messages/1").body))
                #expect(answer.json["state"]?.string == "showing")
                #expect(answer.json["taps"]?.array?.count == index + 1)
                #expect(answer.json["taps"]?[index]?["action"] == tap.action)
                #expect(answer.json["taps"]?[index]?["at"]?.number == 1)
                #expect(try live.version("\(prefix)/overlay") == version + index + 1)
            }
            let overlay = try live.get("\(prefix)/overlay").json
            #expect(overlay["message"]?["taps"]?.array?.count == taps.count)
            #expect(overlay["message"]?["actions"]?[0]?["url"]?.string == "https://ci.example/42/retry")
            #expect(overlay["message"]?["actions"]?[1]?["url"] == .null)
            try live.advance(2.25)
            #expect(try live.get("\(prefix)/messages/1").json["state"]?.string == "done")
            #expect(try live.get("\(prefix)/messages/1").json["taps"]?.array?.count == taps.count)
        }
    }

    /// The last 10 are kept, whatever comes.
    @Test func theLastTen() throws {
        try withLiveServer(started: Self.shown()) { live in
            for step in 0..<25 {
                try live.advance(0.001)
                #expect(
                    try live.request("POST", "/overlay/tap", body: step.isMultiple(of: 2) ? "retry" : "mute").status
                        == 200)
            }
            let taps = try #require(try live.get("/messages/1").json["taps"]?.array)
            #expect(taps.count == 10)
            #expect(taps.first?["at"]?.number == 1.016)
            #expect(taps.last?["at"]?.number == 1.025)
            #expect(taps.last?["action"]?.string == "retry")
        }
    }

    /// Nothing shown (nothing posted, a channel that does not exist, the ended message hiding,
    /// hidden) is 409 `nothing_shown`; an action the message does not have is 422 naming `action`;
    /// a body of the wrong shape is 400 or 415. None changes anything or creates a channel.
    @Test func refusalsChangeNothing() throws {
        try withLiveServer { fresh in
            for prefix in ["", "/channels/ghost"] {
                expectError(try fresh.request("POST", "\(prefix)/overlay/tap"), status: 409, code: "nothing_shown")
                expectError(
                    try fresh.request("POST", "\(prefix)/overlay/tap", body: "retry"), status: 409,
                    code: "nothing_shown")
            }
            #expect(
                try fresh.get("/channels").json["channels"]?.array?.compactMap { $0["name"]?.string } == ["default"])
            #expect(try fresh.version() == 0)

            try withLiveServer(started: Self.shown()) { live in
                let before = try live.observableState()
                let json = [("Content-Type", "application/json")]
                let refused: [(body: String, headers: [(String, String)], status: Int, code: String, field: String?)] =
                    [
                        (#"{"action": "nope"}"#, json, 422, "invalid_field", "action"),
                        (#"{"action": "RETRY"}"#, json, 422, "invalid_field", "action"),
                        ("nope", [], 422, "invalid_field", "action"),
                        (#"{"action": ""}"#, json, 422, "invalid_field", "action"),
                        (#"{"action": 5}"#, json, 400, "bad_request", "action"),
                        (#"{"action": ["retry"]}"#, json, 400, "bad_request", "action"),
                        (#"{"actoin": "retry"}"#, json, 400, "bad_request", "actoin"),
                        (#"{"action": "retry", "action": "mute"}"#, json, 400, "invalid_json", nil),
                        (#"["retry"]"#, json, 400, "bad_request", nil),
                        ("{", json, 400, "invalid_json", nil),
                        ("<retry/>", [("Content-Type", "application/xml")], 415, "unsupported_media_type", nil),
                    ]
                for (body, headers, status, code, field) in refused {
                    expectError(
                        try live.request("POST", "/overlay/tap", headers: headers, body: body), status: status,
                        code: code,
                        field: field)
                }
                expectError(
                    try live.request("POST", "/overlay/tap?action=retry", body: "mute"), status: 400,
                    code: "bad_request",
                    field: "action")
                try live.expectUnchanged(since: before)
                #expect(try live.get("/messages/1").json["taps"]?.array == [])

                // While the ended message hides, and once hidden.
                try live.advance(2.3)
                #expect(try live.overlay()["phase"]?.string == "hiding")
                let hiding = try live.observableState()
                expectError(try live.request("POST", "/overlay/tap"), status: 409, code: "nothing_shown")
                expectError(try live.request("POST", "/overlay/tap", body: "retry"), status: 409, code: "nothing_shown")
                try live.expectUnchanged(since: hiding)
                try live.advance(1)
                expectError(try live.request("POST", "/overlay/tap"), status: 409, code: "nothing_shown")
            }
        }
    }

    /// A thousand taps through the server's own dispatch (as a reader tapping a thousand times a
    /// second would send them): the message keeps 10, and what the channel's messages hold, as
    /// `limits.maxMemoryBytes` counts it, stops growing at the tenth.
    @Test func aThousandTapsHoldTen() throws {
        let service = try OverlayService.testing()
        let posted = service.answer(
            HTTPRequest(
                "POST", "/messages", headers: [Header(name: "Content-Type", value: "application/json")],
                body: SampleMessage.withActions))
        #expect(posted.status == 202)
        var afterTen = 0
        for step in 1...1000 {
            let body = step.isMultiple(of: 2) ? "retry" : ""
            let tapped = service.answer(HTTPRequest("POST", "/overlay/tap", body: body))
            #expect(tapped.status == 200)
            if step == 10 { afterTen = service.memory.bytes }
            if step > 10, step.isMultiple(of: 2) { #expect(service.memory.bytes == afterTen) }
        }
        let message = service.answer(HTTPRequest("GET", "/messages/1")).json
        #expect(message["taps"]?.array?.count == 10)
        #expect(afterTen > 0)
        // GET is not a tap: 405 with what the path allows.
        let wrong = service.answer(HTTPRequest("GET", "/overlay/tap"))
        #expect(wrong.status == 405 && wrong.header("Allow") == "POST, OPTIONS")
    }

    /// A tap is a write: without the token 401, with a read-only one 403; with a write token it
    /// counts under its route in the request histogram.
    @Test func aTapIsAWrite() throws {
        try withLiveServer(
            started: LiveServer {
                $0.token = "writer"
                $0.readToken = "reader"
            }
        ) { live in
            let writer = [("Authorization", "Bearer writer")]
            #expect(try live.request("POST", "/messages", headers: writer, body: "shown").status == 202)
            expectError(try live.request("POST", "/overlay/tap"), status: 401, code: "unauthorized")
            expectError(
                try live.request("POST", "/overlay/tap", headers: [("Authorization", "Bearer reader")]), status: 403,
                code: "forbidden")
            let unread = try live.request("GET", "/messages/1", headers: [("Authorization", "Bearer reader")])
            #expect(unread.json["taps"]?.array == [])
            #expect(try live.request("POST", "/overlay/tap", headers: writer).status == 200)
            let samples = try live.metrics(headers: writer)
            #expect(samples[#"overlayd_request_duration_seconds_count{route="/overlay/tap",method="POST"}"#] == 3)
        }
    }
}
