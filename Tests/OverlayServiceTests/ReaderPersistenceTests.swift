import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// The reader's side across a restart (docs/MODEL.md §14, docs/BEHAVIOUR.md "Durability"): a
/// message's click, actions, accessibility label and taps are stored with it, live or ended; the
/// message shown again is announced at the restart's version; a channel that showed nothing keeps
/// the version its announcement became null at.
@Suite("Reader's side persistence")
struct ReaderPersistenceTests {
    static let body = #"""
        {"text": "Build 42 failed", "kind": "failed", "click": "https://ci.example/42",
         "actions": [{"id": "retry", "label": "Retry", "url": "https://ci.example/42/retry"}, {"id": "mute", "label": "Mute"}],
         "accessibilityLabel": "Build forty-two failed"}
        """#

    /// The fields a restart must keep, as the API shows them.
    static func readerFields(_ message: JSONValue) -> [JSONValue] {
        ["click", "actions", "accessibilityLabel", "taps"].map { message[$0] ?? .null }
    }

    @Test func aRestartKeepsEverything() throws {
        var before: [Int: [JSONValue]] = [:]
        var versionBefore = 0
        try withRestart { live in
            // 1 is tapped and ends (in the history); 2 is tapped and shown; 3 waits.
            #expect(
                try live.post("/messages", json: #"{"text": "first", "duration": 1, "click": "x-app:1"}"#).status
                    == 202
            )
            #expect(try live.request("POST", "/overlay/tap").status == 200)
            try live.advance(1.25)
            #expect(try live.get("/messages/1").json["state"]?.string == "done")
            #expect(try live.post("/messages", json: Self.body).status == 202)
            #expect(
                try live.post("/messages", json: #"{"text": "waiting", "actions": [{"id": "x", "label": "X"}]}"#)
                    .status
                    == 202)
            try live.advance(1)
            #expect(try live.request("POST", "/overlay/tap", body: "retry").status == 200)
            #expect(try live.post("/overlay/tap", json: #"{"action": null}"#).status == 200)
            for id in 1...3 { before[id] = Self.readerFields(try live.get("/messages/\(id)").json) }
            #expect(before[2]?[3].array?.count == 2)
            versionBefore = try #require(try live.version())
        } then: { live in
            for id in 1...3 {
                #expect(Self.readerFields(try live.get("/messages/\(id)").json) == before[id], "message \(id)")
            }
            let overlay = try live.overlay()
            #expect(overlay["message"]?["id"]?.int == 2)
            #expect(overlay["message"]?["taps"]?.array?.count == 2)
            #expect(overlay["announcement"]?.string == "Build forty-two failed")
            // Shown again at the restart's version: a reader speaks it again.
            let version = try #require(overlay["version"]?.int)
            #expect(version > versionBefore)
            #expect(overlay["announcementVersion"]?.int == version)
            // The taps go on from where they were, and the actions still answer.
            let tapped = try live.request("POST", "/overlay/tap", body: "mute")
            #expect(tapped.json["taps"]?.array?.count == 3)
            expectError(
                try live.request("POST", "/overlay/tap", body: "x"), status: 422, code: "invalid_field", field: "action"
            )
        }
    }

    /// Nothing shown before the stop nor after: the announcement stays null at the version it
    /// became null at.
    @Test func aQuietChannelKeepsItsVersion() throws {
        var nullSince = 0
        try withRestart { live in
            #expect(try live.post("/messages", json: #"{"text": "gone", "duration": 1}"#).status == 202)
            try live.advance(2)
            let overlay = try live.overlay()
            #expect(overlay["phase"]?.string == "hidden" && overlay["announcement"] == .null)
            nullSince = try #require(overlay["announcementVersion"]?.int)
            #expect(nullSince == overlay["version"]?.int)
        } then: { live in
            let overlay = try live.overlay()
            #expect(overlay["announcement"] == .null)
            #expect(overlay["announcementVersion"]?.int == nullSince)
            #expect(try #require(overlay["version"]?.int) > nullSince)
        }
    }
}
