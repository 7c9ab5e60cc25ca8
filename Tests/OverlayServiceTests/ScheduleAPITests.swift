import OverlayEngine
import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// `delay`, `at`, `expires` and `priority` (MODEL §11) through real HTTP with the manual clock:
/// in every body the API reads, with their units and names; every bad value refused, naming the
/// field, changing nothing; the scheduled listing, the limit, PATCH and DELETE of a scheduled one.
@Suite("Scheduled, expiring and prioritised messages through the API (§11)")
struct ScheduleAPITests {
    /// The ways a sender schedules "Stand-up" two minutes ahead, high, lapsing 30 s after it joins.
    static let bodies: [(name: String, path: String, headers: [(String, String)], body: String)] = [
        (
            "json", "/messages", [("Content-Type", "application/json")],
            #"{"text": "Stand-up", "delay": "2m", "priority": "high", "expires": 30}"#
        ),
        ("query", "/messages?delay=2m&priority=high&expires=30s", [("Content-Type", "text/plain")], "Stand-up"),
        ("form", "/messages", [FormBody.urlEncoded], "text=Stand-up&delay=120&priority=4&expires=30"),
        {
            let multipart = FormBody.multipart([
                ("text", nil, "Stand-up"), ("delay", nil, "120s"), ("priority", nil, "4"), ("expires", nil, "0.5m"),
            ])
            return ("multipart", "/messages", [multipart.header], multipart.body)
        }(),
    ]

    @Test(arguments: ScheduleAPITests.bodies.map(\.name))
    func everyBody(_ name: String) throws {
        let way = try #require(Self.bodies.first { $0.name == name })
        try withLiveServer { live in
            let posted = try live.request("POST", way.path, headers: way.headers, body: way.body)
            #expect(posted.status == 202, "\(posted.text)")
            for message in [posted.json, try live.get("/messages/1").json] {
                #expect(message["state"]?.string == "scheduled")
                #expect(message["scheduledFor"]?.number == 120)
                #expect(message["priority"]?.int == 4)
                #expect(message["expires"]?.number == 30)
                #expect(message["expiresAt"] == .null)
            }
            #expect(try live.get("/messages").json["messages"]?.array?.isEmpty == true)
            let listed = try live.get("/messages?state=scheduled").json["messages"]?.array
            #expect(listed?.map { $0["id"]?.int } == [1])
            #expect(try live.overlay()["scheduled"]?.int == 1)
            #expect(try live.overlay()["phase"]?.string == "hidden")

            // Its time comes on the manual clock: it shows, and its expiry no longer applies.
            #expect(try live.advance(120).status == 200)
            let overlay = try live.overlay()
            #expect(overlay["phase"]?.string == "showing" && overlay["scheduled"]?.int == 0)
            #expect(overlay["message"]?["text"]?.string == "Stand-up")
        }
    }

    /// The units a wait takes, as JSON strings and numbers alike.
    @Test(arguments: [
        (#""30s""#, 30.0), (#""5m""#, 300), (#""2h""#, 7200), (#""1d""#, 86400), (#""90""#, 90), ("1.5", 1.5),
        (#"" 10 s ""#, 10), (#""0.25h""#, 900), ("604800", 604_800), (#""7d""#, 604_800),
    ])
    func waitUnits(_ delay: String, _ seconds: Double) throws {
        try withLiveServer { live in
            let posted = try live.post("/messages", json: #"{"text": "x", "delay": \#(delay)}"#)
            #expect(posted.status == 202, "\(posted.text)")
            #expect(posted.json["scheduledFor"]?.number == seconds)
        }
    }

    /// Each bad value is refused with its status, naming its field, and changes nothing.
    @Test(arguments: [
        (#""delay": 0"#, 422, "delay"), (#""delay": -5"#, 422, "delay"), (#""delay": "8d""#, 422, "delay"),
        (#""delay": 604800.001"#, 422, "delay"), (#""delay": "5x""#, 400, "delay"), (#""delay": """#, 400, "delay"),
        (#""delay": "s""#, 400, "delay"), (#""delay": true"#, 400, "delay"), (#""delay": "1h30m""#, 400, "delay"),
        (#""delay": "1e400s""#, 422, "delay"),
        (#""delay": "\#(String(repeating: "9", count: 400))""#, 422, "delay"), (#""delay": "0x10""#, 400, "delay"),
        (#""delay": 5, "at": 9"#, 400, "at"), (#""at": 604802"#, 422, "at"),
        (#""at": "2026-13-01T00:00:00Z""#, 422, "at"), (#""at": "2026-13-01T00:00Z""#, 400, "at"),
        (#""at": "tomorrow""#, 400, "at"),
        (#""at": "2026-12-02T10:00:00Z""#, 422, "at"), (#""at": [1]"#, 400, "at"),
        (#""at": "9999-12-31T23:59:59Z""#, 422, "at"), (#""at": "0001-01-01T00:00:00Z""#, 422, "at"),
        (#""expires": 0"#, 422, "expires"), (#""expires": "-1m""#, 422, "expires"),
        (#""expires": "8d""#, 422, "expires"),
        (#""priority": 0"#, 422, "priority"), (#""priority": 6"#, 422, "priority"),
        (#""priority": 2.5"#, 422, "priority"),
        (#""priority": "urgentest""#, 422, "priority"), (#""priority": true"#, 400, "priority"),
        (#""priority": """#, 422, "priority"),
    ])
    func badValues(_ member: String, _ status: Int, _ field: String) throws {
        try withLiveServer(started: LiveServer.startedWithTwoMessages()) { live in
            #expect(try live.post("/messages", json: #"{"text": "later", "delay": 60}"#).status == 202)
            let before = try live.observableState()
            let refused = try live.post("/messages", json: #"{"text": "bad", \#(member)}"#)
            expectError(refused, status: status, code: status == 400 ? "bad_request" : "invalid_field", field: field)
            // The same value in a PATCH of the scheduled message (3) is refused alike.
            let patched = try live.request(
                "PATCH", "/messages/3", headers: [("Content-Type", "application/json")], body: "{\(member)}")
            expectError(patched, status: status, code: status == 400 ? "bad_request" : "invalid_field", field: field)
            try live.expectUnchanged(since: before)
        }
    }

    /// A new time for a message that is no longer scheduled is 409, naming the field, and
    /// changes nothing; the scheduled one takes it.
    @Test func newTimeOnlyWhileScheduled() throws {
        try withLiveServer(started: LiveServer.startedWithTwoMessages()) { live in
            #expect(try live.post("/messages", json: #"{"text": "later", "delay": 60}"#).status == 202)
            let before = try live.observableState()
            let json = [("Content-Type", "application/json")]
            for (id, member, field) in [(1, #""delay": 5"#, "delay"), (2, #""at": 30"#, "at")] {
                let refused = try live.request("PATCH", "/messages/\(id)", headers: json, body: "{\(member)}")
                expectError(refused, status: 409, code: "not_scheduled", field: field)
            }
            try live.expectUnchanged(since: before)
            let moved = try live.request("PATCH", "/messages/3", headers: json, body: #"{"delay": "10s"}"#)
            #expect(moved.status == 200 && moved.json["scheduledFor"]?.number == 11)
            let now = try live.request("PATCH", "/messages/3", headers: json, body: #"{"at": 1}"#)
            #expect(now.status == 200 && now.json["state"]?.string == "queued")
            #expect(try live.overlay()["queued"]?.int == 2)
        }
    }

    /// `maxScheduled` wait at most: one more is 503 `schedule_full` with `Retry-After`, the
    /// seconds until the first is due, rounded up.
    @Test func scheduleFull() throws {
        try withLiveServer(configure: { $0.engine.maxScheduled = 1 }) { live in
            #expect(try live.post("/messages", json: #"{"text": "a", "delay": 7.5}"#).status == 202)
            let before = try live.observableState()
            let refused = try live.post("/messages", json: #"{"text": "b", "delay": 1}"#)
            expectError(refused, status: 503, code: "schedule_full")
            #expect(refused.header("Retry-After") == "8")
            try live.expectUnchanged(since: before)
            #expect(try live.post("/messages", json: #"{"text": "c"}"#).status == 202)
        }
    }

    /// The scheduled listing is paged like the live one, in the order the messages are due; a
    /// cursor no longer scheduled is 409; `state` takes `live` and `scheduled` only, once.
    @Test func scheduledListing() throws {
        try withLiveServer { live in
            for delay in [40, 10, 30, 20] {
                #expect(try live.post("/messages", json: #"{"text": "m", "delay": \#(delay)}"#).status == 202)
            }
            let first = try live.get("/messages?state=scheduled&limit=3").json
            #expect(first["messages"]?.array?.map { $0["id"]?.int } == [2, 4, 3])
            #expect(first["next"]?.int == 3)
            let second = try live.get("/messages?state=scheduled&limit=3&after=3").json
            #expect(second["messages"]?.array?.map { $0["id"]?.int } == [1])
            #expect(try live.get("/messages?state=live").json["messages"]?.array?.isEmpty == true)
            #expect(try live.advance(10).status == 200)
            expectError(
                try live.get("/messages?state=scheduled&after=2"), status: 409, code: "cursor_expired", field: "after")
            expectError(try live.get("/messages?state=queued"), status: 422, code: "invalid_field", field: "state")
            expectError(
                try live.get("/messages?state=live&state=scheduled"), status: 400, code: "bad_request", field: "state")
        }
    }

    /// A keyed POST updates the scheduled message with its key (200, still scheduled); DELETE
    /// cancels it.
    @Test func keyedPostAndDelete() throws {
        try withLiveServer { live in
            #expect(try live.post("/messages", json: #"{"text": "a", "key": "r", "delay": 60}"#).status == 202)
            let updated = try live.post("/messages", json: #"{"text": "b", "key": "r", "priority": "max"}"#)
            #expect(updated.status == 200 && updated.json["state"]?.string == "scheduled")
            #expect(updated.json["text"]?.string == "b" && updated.json["priority"]?.int == 5)
            let deleted = try live.request("DELETE", "/messages/1")
            #expect(deleted.status == 200 && deleted.json["state"]?.string == "cancelled")
            #expect(try live.overlay()["scheduled"]?.int == 0)
        }
    }

    /// The waiting queue by priority through the API: a failed message passes earlier infos;
    /// `expires` ends one still waiting.
    @Test func priorityAndExpiry() throws {
        try withLiveServer { live in
            #expect(try live.post("/messages", json: #"{"text": "upload", "kind": "sending"}"#).status == 202)
            #expect(try live.post("/messages", json: #"{"text": "info", "expires": "5s"}"#).status == 202)
            #expect(try live.post("/messages", json: #"{"text": "failed", "kind": "failed"}"#).status == 202)
            #expect(try live.post("/messages", json: #"{"text": "min", "priority": "min"}"#).status == 202)
            let texts = try live.get("/messages").json["messages"]?.array?.map { $0["text"]?.string }
            #expect(texts == ["upload", "failed", "info", "min"])
            #expect(try live.get("/messages/2").json["expiresAt"]?.number == 5)
            #expect(try live.advance(5).status == 200)
            #expect(try live.get("/messages/2").json["state"]?.string == "expired")
            #expect(try live.overlay()["queued"]?.int == 2)
        }
    }
}
