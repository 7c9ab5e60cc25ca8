import ServiceTestSupport
import Synchronization
import TestSupport
import Testing

@testable import MicroHTTP
@testable import OverlayService
@testable import OverlayStore

#if canImport(Glibc)
    import Glibc
#endif

/// MODEL §7 "Durable": the queue, the shown message (shown again from the start of its animation),
/// the history, channels, orientation and device survive a restart; ids and versions never
/// repeat. In-process servers on one data directory, one after the other.
@Suite("Persistence")
struct PersistenceTests {
    /// Tracks the highest version a reader saw and every ETag, across requests.
    final class Seen {
        var maximum = 0
        var etags: Set<String> = []

        func overlay(_ live: LiveServer, _ channel: String = "") throws -> JSONValue {
            let response = try live.get("\(channel)/overlay")
            #expect(response.status == 200)
            if let etag = response.header("ETag") { etags.insert(etag) }
            maximum = max(maximum, response.json["version"]?.int ?? 0)
            return response.json
        }
    }

    /// Messages of every sort (keys, progress, durations, a cancelled and a done one, an immediate
    /// that sent a sticky one back to the head), a second channel on another device in the
    /// middle of a rotation: after a restart on the same directory the queues, their order and
    /// fields, the history, device and orientation are back; the shown message shows again from
    /// the start of its slide; versions, ETags and ids go on beyond everything seen before.
    @Test func roundTrip() throws {
        let seen = Seen()
        let json = [("Content-Type", "application/json")]
        var before: [String: [[String]]] = [:]
        var maximumID = 0
        var etagsBefore: Set<String> = []
        var versionBefore = 0
        try withRestart { live in
            // 1 ends (done) before the others come: history.
            #expect(try live.post("/messages", json: #"{"text": "quick", "duration": 0.5}"#).status == 202)
            try live.advance(1)
            #expect(try seen.overlay(live)["phase"]?.string == "hidden")
            // 2 is shown (sticky); 3, 4, 5 wait; 5 is cancelled.
            let posts = [
                #"{"text": "Sending photo…", "kind": "sending", "key": "upload-42"}"#,
                #"{"kind": "progress", "text": "Downloading…", "progress": 0.25, "key": "dl-7"}"#,
                #"{"text": "custom", "kind": "failed", "duration": 42.5}"#,
                #"{"text": "to be cancelled"}"#,
            ]
            for (offset, body) in posts.enumerated() {
                let posted = try live.post("/messages", json: body)
                #expect(posted.status == 202)
                #expect(posted.json["id"]?.int == offset + 2)
            }
            #expect(try live.request("DELETE", "/messages/5").json["state"]?.string == "cancelled")
            let keyed = try live.post("/messages", json: #"{"key": "dl-7", "progress": 0.5}"#)
            #expect(keyed.status == 200)
            #expect(keyed.json["id"]?.int == 3)
            #expect(
                try live.request("PATCH", "/messages/4", headers: json, body: #"{"text": "custom!"}"#).status == 200
            )
            try live.advance(1)
            // An immediate replaces the sticky 2, which goes back to the head of the queue.
            let urgent = try live.post(
                "/messages", json: #"{"text": "urgent", "kind": "failed", "immediate": true}"#)
            #expect(urgent.json["id"]?.int == 6)
            #expect(try seen.overlay(live)["message"]?["id"]?.int == 6)

            // Another channel, on another device, in another orientation.
            #expect(
                try live.post("/channels/ops/messages", json: #"{"text": "ops one", "kind": "sent"}"#).status == 202
            )
            #expect(try live.request("PUT", "/channels/ops/device", body: "iphone").status == 200)
            #expect(try live.post("/channels/ops/messages", json: #"{"text": "ops two"}"#).status == 202)
            #expect(try live.request("PUT", "/channels/ops/orientation", body: "landscapeLeft").status == 200)
            _ = try seen.overlay(live, "/channels/ops")

            for channel in ["", "/channels/ops"] {
                let messages = try #require(live.get("\(channel)/messages").json["messages"]?.array)
                before[channel] = messages.map(StoredState.kept)
                maximumID = max(maximumID, messages.compactMap { $0["id"]?.int }.max() ?? 0)
            }
            // 4, a failed message, waits ahead of 3: its kind's priority is higher.
            #expect(before[""]?.map { $0[0] } == [6, 2, 4, 3].map { "id=\(JSONValue.number($0))" })
            _ = try seen.overlay(live)
            // What was seen before the restart, to compare what comes after with.
            etagsBefore = seen.etags
            versionBefore = seen.maximum
        } then: { live in
            // The same queue, in the same order, with the same fields.
            for channel in ["", "/channels/ops"] {
                let messages = try #require(live.get("\(channel)/messages").json["messages"]?.array)
                #expect(messages.map(StoredState.kept) == before[channel])
                #expect(messages.first?["state"]?.string == "showing")
                #expect(messages.dropFirst().allSatisfy { $0["state"]?.string == "queued" })
            }
            // The shown one shows again from the start of its slide.
            let overlay = try seen.overlay(live)
            #expect(overlay["phase"]?.string == "showing")
            #expect(overlay["contentOffset"]?.number == -20)
            #expect(overlay["message"]?["id"]?.int == 6)
            #expect(overlay["message"]?["state"]?.string == "showing")
            #expect(overlay["animation"]?["from"]?.number == -20)
            #expect(overlay["animation"]?["start"]?.number == 0)
            #expect(overlay["queued"]?.int == 3)
            // The version is beyond anything seen before, so no ETag repeats.
            let version = try #require(overlay["version"]?.int)
            #expect(version > versionBefore)
            let etag = try #require(live.get("/overlay").header("ETag"))
            #expect(!etagsBefore.contains(etag))

            // The history: the done and the cancelled message can still be read.
            let done = try live.get("/messages/1")
            #expect(done.status == 200)
            #expect(done.json["state"]?.string == "done")
            #expect(done.json["text"]?.string == "quick")
            #expect(done.json["endedAt"]?.number == 0.75)
            #expect(try live.get("/messages/5").json["state"]?.string == "cancelled")

            // The other channel: its device, orientation (a rotation was under way) and queue.
            let channel = try live.get("/channels/ops").json
            #expect(channel["device"]?.string == "iphone")
            #expect(channel["orientation"]?.string == "landscapeLeft")
            let ops = try seen.overlay(live, "/channels/ops")
            #expect(ops["frame"]?["width"]?.number == 20)
            #expect(ops["frame"]?["height"]?.number == 480)
            #expect(ops["rotation"]?.number == -90)
            #expect(ops["message"]?["text"]?.string == "ops one")

            // A key still finds its restored message; a new message gets an id never used before.
            let keyed = try live.post("/messages", json: #"{"key": "upload-42", "kind": "sent", "text": "Photo sent"}"#)
            #expect(keyed.status == 200)
            #expect(keyed.json["id"]?.int == 2)
            let fresh = try live.post("/messages", json: #"{"text": "after the restart"}"#)
            #expect(fresh.status == 202)
            #expect(try #require(fresh.json["id"]?.int) > maximumID)
            let opsFresh = try live.post("/channels/ops/messages", json: #"{"text": "ops three"}"#)
            #expect(try #require(opsFresh.json["id"]?.int) > maximumID)
        }
    }

    /// Restart after restart, with writes and deadlines in between: each version and id is beyond
    /// every earlier one, and no ETag comes back.
    @Test func versionsAndIdsNeverRepeat() throws {
        let directory = try TemporaryDirectory()
        let seen = Seen()
        var ids: Set<Int> = []
        var highestID = 0
        for round in 0..<4 {
            try withLiveServer(started: LiveServer.durable(on: directory)) { live in
                let etagsBefore = seen.etags
                let versionBefore = seen.maximum
                let first = try seen.overlay(live)
                if round > 0 {
                    #expect(try #require(first["version"]?.int) > versionBefore)
                    #expect(seen.etags.subtracting(etagsBefore).count == 1)
                }
                for index in 0..<3 {
                    let posted = try live.post(
                        "/messages", json: #"{"text": "round \#(round) #\#(index)", "duration": 1}"#)
                    let id = try #require(posted.json["id"]?.int)
                    #expect(!ids.contains(id))
                    #expect(id > highestID)
                    ids.insert(id)
                    highestID = id
                    _ = try seen.overlay(live)
                }
                try live.advance(1.5)
                _ = try seen.overlay(live)
            }
        }
    }

    /// An orientation change that is still rotating out when the process stops is not lost: the
    /// PUT was answered 200, so the restarted overlay is in the new orientation.
    @Test func orientationOfARunningRotationSurvives() throws {
        try withRestart { live in
            #expect(try live.post("/messages", json: #"{"text": "a", "kind": "sending"}"#).status == 202)
            try live.advance(1)
            let rotating = try live.request("PUT", "/orientation", body: "landscapeRight")
            #expect(rotating.status == 200)
            #expect(rotating.json["phase"]?.string == "rotatingOut")
        } then: { live in
            let overlay = try live.overlay()
            #expect(overlay["orientation"]?.string == "landscapeRight")
            #expect(overlay["rotation"]?.number == 90)
            #expect(overlay["phase"]?.string == "showing")
        }
    }

    /// A restart with a smaller `historySize` forgets the oldest ended messages, and their rows go:
    /// a later restart with a larger history does not bring them back.
    @Test func smallerHistoryForgetsForGood() throws {
        let directory = try TemporaryDirectory()
        do {
            try withLiveServer(started: LiveServer.durable(on: directory)) { live throws in
                for index in 1...4 {
                    #expect(try live.post("/messages", json: #"{"text": "m\#(index)"}"#).status == 202)
                    #expect(try live.request("DELETE", "/messages/\(index)").status == 200)
                }
            }
        }
        do {
            try withLiveServer(
                started: LiveServer.durable(on: directory) {
                    $0.engine.historySize = 2
                }
            ) { live throws in
                #expect(try live.get("/messages/1").status == 404)
                #expect(try live.get("/messages/3").status == 200)
            }
        }
        try withLiveServer(started: LiveServer.durable(on: directory)) { live throws in
            #expect(try live.get("/messages/1").status == 404)
            #expect(try live.get("/messages/2").status == 404)
            #expect(try live.get("/messages/4").json["state"]?.string == "cancelled")
        }
    }

    /// The history comes back in the order the messages ended, also when one step of the clock
    /// ends several of them out of id order: the newest stays when the history is cut.
    @Test func historyKeepsTheOrderOfEnding() throws {
        let directory = try TemporaryDirectory()
        do {
            try withLiveServer(started: LiveServer.durable(on: directory)) { live in
                #expect(try live.post("/messages", json: #"{"text": "sticky", "kind": "sending"}"#).status == 202)
                try live.advance(1)
                // 2 replaces the sticky 1, which waits at the head; 2 ends at 1.5, then 1 shows and
                // expires at 301.5: both within one advance, 2 first.
                let urgent = try live.post(
                    "/messages", json: #"{"text": "urgent", "duration": 0.5, "immediate": true}"#)
                #expect(urgent.json["id"]?.int == 2)
                try live.advance(400)
                #expect(try live.get("/messages/1").json["endedAt"]?.number == 301.5)
                #expect(try live.get("/messages/2").json["endedAt"]?.number == 1.5)
            }
        }
        try withLiveServer(
            started: LiveServer.durable(on: directory) {
                $0.engine.historySize = 1
            }
        ) { live throws in
            #expect(try live.get("/messages/1").json["state"]?.string == "expired")
            #expect(try live.get("/messages/2").status == 404)
        }
    }

    /// An ended message reads the same after a restart, the times of its display included: it
    /// was shown at 0, its display started when the slide ended (0.25) and it was preempted at
    /// 0.5; its successor was shown and displayed at 0.5 and ended at 1.5.
    @Test func endedMessagesKeepTheirTimes() throws {
        var before: [JSONValue] = []
        try withRestart { live in
            #expect(try live.post("/messages", json: #"{"text": "first", "duration": 1}"#).status == 202)
            try live.advance(0.5)
            let urgent = #"{"text": "urgent", "duration": 1, "immediate": true}"#
            #expect(try live.post("/messages", json: urgent).status == 202)
            try live.advance(2)
            before = try [1, 2].map { try live.get("/messages/\($0)").json }
            #expect(before.map { $0["state"]?.string } == ["preempted", "done"])
            #expect(before.map { $0["shownAt"]?.number } == [0, 0.5])
            #expect(before.map { $0["displayStartedAt"]?.number } == [0.25, 0.5])
            #expect(before.map { $0["endedAt"]?.number } == [0.5, 1.5])
        } then: { live in
            let after = try [1, 2].map { try live.get("/messages/\($0)").json }
            #expect(after == before)
        }
    }

    /// A data directory of the first schema (before the display times, the exact state and the
    /// status bar were stored) is migrated to the latest: its messages load as they were stored,
    /// with no display times, new ones keep theirs, and its status bar is stored from then on.
    @Test func firstSchemaMigrates() throws {
        let directory = try TemporaryDirectory()
        try StoredState.write(
            in: directory, schema: 1,
            rows: """
                INSERT INTO channels VALUES ('default', 12, 100012, 3, 1003, 'landscapeLeft', 'iphone');
                INSERT INTO messages VALUES ('default', 1, 'sent', 'ended before', NULL, NULL, 0, NULL, 'done',
                  0, 2250000000, 1, 1);
                INSERT INTO messages VALUES ('default', 2, 'sending', 'still waiting', NULL, NULL, 0, 'upload', 'queued',
                  500000000, NULL, 2, NULL);
                """)
        do {
            try withLiveServer(started: LiveServer.durable(on: directory)) { live in
                let ended = try live.get("/messages/1").json
                #expect(ended["state"]?.string == "done")
                #expect(ended["text"]?.string == "ended before")
                #expect(ended["endedAt"]?.number == 2.25)
                #expect(ended["shownAt"]?.isNull == true)
                #expect(ended["displayStartedAt"]?.isNull == true)
                let shown = try live.get("/messages/2").json
                #expect(shown["state"]?.string == "showing")
                #expect(shown["key"]?.string == "upload")
                let overlay = try live.overlay()
                #expect(overlay["orientation"]?.string == "landscapeLeft")
                #expect(overlay["device"]?.string == "iphone")
                #expect(try #require(overlay["version"]?.int) > 100_012)
                try live.advance(1)
                #expect(try live.request("DELETE", "/messages/2").status == 200)
                #expect(try live.post("/messages", json: #"{"text": "new"}"#).json["id"]?.int == 1003)
                // The status bar starts at its launch state, and is stored from then on.
                #expect(try live.get("/statusbar").json["statusBar"]?["style"]?.string == "lightContent")
                #expect(try live.request("PUT", "/statusbar?style=darkContent").status == 200)
            }
        }
        #expect(try StoredState.schemaVersion(in: directory) == Schema.latest)
        try withLiveServer(started: LiveServer.durable(on: directory)) { live in
            let cancelled = try live.get("/messages/2").json
            #expect(cancelled["state"]?.string == "cancelled")
            #expect(cancelled["shownAt"]?.number == 0)
            #expect(cancelled["displayStartedAt"]?.number == 0.25)
            #expect(try live.get("/statusbar").json["statusBar"]?["style"]?.string == "darkContent")
        }
    }

    /// While one server holds the data directory, another cannot open it: StoreError, not a second
    /// writer on the same file.
    @Test func oneServerPerDataDirectory() throws {
        let directory = try TemporaryDirectory()
        try withLiveServer(started: LiveServer.durable(on: directory)) { first throws in
            #expect(throws: StoreError.self) { _ = try LiveServer.durable(on: directory) }
            #expect(try first.post("/messages", json: #"{"text": "still mine"}"#).status == 202)
        }
    }
}
