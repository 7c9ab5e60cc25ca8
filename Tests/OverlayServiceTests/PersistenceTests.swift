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
    /// A manual-clock server keeping its state in `directory`.
    static func server(on directory: TemporaryDirectory) throws -> LiveServer {
        try LiveServer(clock: .manual) {
            $0.ephemeral = false
            $0.dataDirectory = directory.path
        }
    }

    /// The fields of a message that a restart keeps.
    static func kept(_ message: JSONValue) -> [String] {
        ["id", "kind", "text", "progress", "duration", "key", "postedAt"].map { "\($0)=\(message[$0] ?? .null)" }
    }

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
        let directory = try TemporaryDirectory()
        let seen = Seen()
        let json = [("Content-Type", "application/json")]
        var before: [String: [[String]]] = [:]
        var maximumID = 0
        do {
            let live = try PersistenceTests.server(on: directory)
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
                try live.request("PATCH", "/messages/4", headers: json, body: #"{"text": "custom!"}"#).status == 200)
            try live.advance(1)
            // An immediate replaces the sticky 2, which goes back to the head of the queue.
            let urgent = try live.post("/messages", json: #"{"text": "urgent", "kind": "failed", "immediate": true}"#)
            #expect(urgent.json["id"]?.int == 6)
            #expect(try seen.overlay(live)["message"]?["id"]?.int == 6)

            // Another channel, on another device, in another orientation.
            #expect(
                try live.post("/channels/ops/messages", json: #"{"text": "ops one", "kind": "sent"}"#).status == 202)
            #expect(try live.request("PUT", "/channels/ops/device", body: "iphone").status == 200)
            #expect(try live.post("/channels/ops/messages", json: #"{"text": "ops two"}"#).status == 202)
            #expect(try live.request("PUT", "/channels/ops/orientation", body: "landscapeLeft").status == 200)
            _ = try seen.overlay(live, "/channels/ops")

            for channel in ["", "/channels/ops"] {
                let messages = try #require(live.get("\(channel)/messages").json["messages"]?.array)
                before[channel] = messages.map(PersistenceTests.kept)
                maximumID = max(maximumID, messages.compactMap { $0["id"]?.int }.max() ?? 0)
            }
            #expect(before[""]?.map { $0[0] } == [6, 2, 3, 4].map { "id=\(JSONValue.number($0))" })
            _ = try seen.overlay(live)
        }

        let etagsBefore = seen.etags
        let versionBefore = seen.maximum
        let live = try PersistenceTests.server(on: directory)
        // The same queue, in the same order, with the same fields.
        for channel in ["", "/channels/ops"] {
            let messages = try #require(live.get("\(channel)/messages").json["messages"]?.array)
            #expect(messages.map(PersistenceTests.kept) == before[channel])
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

    /// Restart after restart, with writes and deadlines in between: each version and id is beyond
    /// every earlier one, and no ETag comes back.
    @Test func versionsAndIdsNeverRepeat() throws {
        let directory = try TemporaryDirectory()
        let seen = Seen()
        var ids: Set<Int> = []
        var highestID = 0
        for round in 0..<4 {
            let live = try PersistenceTests.server(on: directory)
            let etagsBefore = seen.etags
            let versionBefore = seen.maximum
            let first = try seen.overlay(live)
            if round > 0 {
                #expect(try #require(first["version"]?.int) > versionBefore)
                #expect(seen.etags.subtracting(etagsBefore).count == 1)
            }
            for index in 0..<3 {
                let posted = try live.post("/messages", json: #"{"text": "round \#(round) #\#(index)", "duration": 1}"#)
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

    /// An orientation change that is still rotating out when the process stops is not lost: the
    /// PUT was answered 200, so the restarted overlay is in the new orientation.
    @Test func orientationOfARunningRotationSurvives() throws {
        let directory = try TemporaryDirectory()
        do {
            let live = try PersistenceTests.server(on: directory)
            #expect(try live.post("/messages", json: #"{"text": "a", "kind": "sending"}"#).status == 202)
            try live.advance(1)
            let rotating = try live.request("PUT", "/orientation", body: "landscapeRight")
            #expect(rotating.status == 200)
            #expect(rotating.json["phase"]?.string == "rotatingOut")
        }
        let live = try PersistenceTests.server(on: directory)
        let overlay = try live.overlay()
        #expect(overlay["orientation"]?.string == "landscapeRight")
        #expect(overlay["rotation"]?.number == 90)
        #expect(overlay["phase"]?.string == "showing")
    }

    /// A restart with a smaller `historySize` forgets the oldest ended messages, and their rows go:
    /// a later restart with a larger history does not bring them back.
    @Test func smallerHistoryForgetsForGood() throws {
        let directory = try TemporaryDirectory()
        do {
            let live = try PersistenceTests.server(on: directory)
            for index in 1...4 {
                #expect(try live.post("/messages", json: #"{"text": "m\#(index)"}"#).status == 202)
                #expect(try live.request("DELETE", "/messages/\(index)").status == 200)
            }
        }
        do {
            let live = try LiveServer(clock: .manual) {
                $0.ephemeral = false
                $0.dataDirectory = directory.path
                $0.engine.historySize = 2
            }
            #expect(try live.get("/messages/1").status == 404)
            #expect(try live.get("/messages/3").status == 200)
        }
        let live = try PersistenceTests.server(on: directory)
        #expect(try live.get("/messages/1").status == 404)
        #expect(try live.get("/messages/2").status == 404)
        #expect(try live.get("/messages/4").json["state"]?.string == "cancelled")
    }

    /// The history comes back in the order the messages ended, also when one step of the clock
    /// ends several of them out of id order: the newest stays when the history is cut.
    @Test func historyKeepsTheOrderOfEnding() throws {
        let directory = try TemporaryDirectory()
        do {
            let live = try PersistenceTests.server(on: directory)
            #expect(try live.post("/messages", json: #"{"text": "sticky", "kind": "sending"}"#).status == 202)
            try live.advance(1)
            // 2 replaces the sticky 1, which waits at the head; 2 ends at 1.5, then 1 shows and
            // expires at 301.5: both within one advance, 2 first.
            let urgent = try live.post("/messages", json: #"{"text": "urgent", "duration": 0.5, "immediate": true}"#)
            #expect(urgent.json["id"]?.int == 2)
            try live.advance(400)
            #expect(try live.get("/messages/1").json["endedAt"]?.number == 301.5)
            #expect(try live.get("/messages/2").json["endedAt"]?.number == 1.5)
        }
        let live = try LiveServer(clock: .manual) {
            $0.ephemeral = false
            $0.dataDirectory = directory.path
            $0.engine.historySize = 1
        }
        #expect(try live.get("/messages/1").json["state"]?.string == "expired")
        #expect(try live.get("/messages/2").status == 404)
    }

    /// While one server holds the data directory, another cannot open it: StoreError, not a second
    /// writer on the same file.
    /// A write waiting for its commit is answered once the commit is done, although its client
    /// half-closed the connection after sending (as `RawClient.request` does, and `nc -N`): the once-a-
    /// second sweep that ends readers whose clients left must not take it for gone. It once did,
    /// and the client of a stored message got a 499 instead of its 202.
    @Test func writeWaitingForItsCommitOutlivesTheSweep() throws {
        let directory = try TemporaryDirectory()
        let live = try PersistenceTests.server(on: directory)
        #expect(try live.post("/messages", json: #"{"text": "first"}"#).status == 202)
        let locked = Atomic(false)
        let posted = Mutex<HTTPReply?>(nil)
        let reaped = Mutex<Int?>(nil)
        let path = directory.database
        onThreads(2) { thread in
            if thread == 0 {
                _ = eventually { locked.load(ordering: .acquiring) }
                let response = try? RawClient.request("POST", "/messages", port: live.port, body: "held")
                posted.withLock { $0 = response }
                return
            }
            // Another connection holds SQLite's write lock, so the POST's commit waits for it.
            guard let blocker = try? Database(path: path), (try? blocker.execute("BEGIN IMMEDIATE")) != nil else {
                locked.store(true, ordering: .releasing)
                return
            }
            locked.store(true, ordering: .releasing)
            // The write waits for its commit, and its client's half-close has reached the server
            // (the server's side of the connection is in CLOSE_WAIT): what the sweep looks at.
            let halfClosed = eventually {
                !live.server.http.suspended.isEmpty
                    && TCPTable().served(onPort: live.port, in: .closeWait).count == 1
            }
            reaped.withLock { $0 = halfClosed ? live.server.http.reapDisconnected() : nil }
            try? blocker.execute("COMMIT")
        }
        #expect(reaped.withLock { $0 } == 0)
        let response = try #require(posted.withLock { $0 })
        #expect(response.status == 202)
        #expect(response.json["text"]?.string == "held")
        #expect(try live.get("/messages").json["messages"]?.array?.count == 2)
    }

    /// An ended message reads the same after a restart, the times of its display included: it
    /// was shown at 0, its display started when the slide ended (0.25) and it was preempted at
    /// 0.5; its successor was shown and displayed at 0.5 and ended at 1.5.
    @Test func endedMessagesKeepTheirTimes() throws {
        let directory = try TemporaryDirectory()
        var before: [JSONValue] = []
        do {
            let live = try PersistenceTests.server(on: directory)
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
        }
        let live = try PersistenceTests.server(on: directory)
        let after = try [1, 2].map { try live.get("/messages/\($0)").json }
        #expect(after == before)
    }

    /// A data directory of the first schema (before the display times, the exact state and the
    /// status bar were stored) is migrated to the latest: its messages load as they were stored,
    /// with no display times, new ones keep theirs, and its status bar is stored from then on.
    @Test func firstSchemaMigrates() throws {
        let directory = try TemporaryDirectory()
        do {
            let database = try Database(path: directory.database)
            try database.execute(PersistenceTests.firstSchema)
            try database.execute(
                """
                INSERT INTO channels VALUES ('default', 12, 100012, 3, 1003, 'landscapeLeft', 'iphone');
                INSERT INTO messages VALUES ('default', 1, 'sent', 'ended before', NULL, NULL, 0, NULL, 'done',
                  0, 2250000000, 1, 1);
                INSERT INTO messages VALUES ('default', 2, 'sending', 'still waiting', NULL, NULL, 0, 'upload', 'queued',
                  500000000, NULL, 2, NULL);
                """)
        }
        do {
            let live = try PersistenceTests.server(on: directory)
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
        let database = try Database(path: directory.database)
        let version = try database.prepare("SELECT version FROM schema_version")
        #expect(try version.step())
        #expect(version.int(0) == Schema.latest)
        let live = try PersistenceTests.server(on: directory)
        let cancelled = try live.get("/messages/2").json
        #expect(cancelled["state"]?.string == "cancelled")
        #expect(cancelled["shownAt"]?.number == 0)
        #expect(cancelled["displayStartedAt"]?.number == 0.25)
        #expect(try live.get("/statusbar").json["statusBar"]?["style"]?.string == "darkContent")
    }

    /// The schema as the first overlayd that stored anything created it, verbatim.
    static let firstSchema = """
        CREATE TABLE schema_version (version INTEGER NOT NULL);
        INSERT INTO schema_version (version) VALUES (1);
        CREATE TABLE channels (
          name TEXT PRIMARY KEY,
          version INTEGER NOT NULL,
          version_reserved INTEGER NOT NULL,
          next_id INTEGER NOT NULL,
          next_id_reserved INTEGER NOT NULL,
          orientation TEXT NOT NULL,
          device TEXT NOT NULL
        ) WITHOUT ROWID;
        CREATE TABLE messages (
          channel TEXT NOT NULL,
          id INTEGER NOT NULL,
          kind TEXT NOT NULL,
          text TEXT NOT NULL,
          progress REAL,
          duration_ns INTEGER,
          immediate INTEGER NOT NULL,
          key TEXT,
          state TEXT NOT NULL,
          posted_at_ns INTEGER NOT NULL,
          ended_at_ns INTEGER,
          queue_order INTEGER NOT NULL,
          history_seq INTEGER,
          PRIMARY KEY (channel, id)
        ) WITHOUT ROWID;
        """

    @Test func oneServerPerDataDirectory() throws {
        let directory = try TemporaryDirectory()
        let first = try PersistenceTests.server(on: directory)
        #expect(throws: StoreError.self) { _ = try PersistenceTests.server(on: directory) }
        #expect(try first.post("/messages", json: #"{"text": "still mine"}"#).status == 202)
    }
}

/// `kill -9` and SIGTERM in the middle of a burst of POSTs, with the real executable: every
/// message answered 202 is there after a restart on the same data directory.
@Suite("Crash and restart")
struct CrashTests {
    /// Eight threads POST as fast as they can; the process is killed with SIGKILL mid-burst and
    /// started again on the same directory, a few rounds over. Every 202 survives; ids and versions
    /// go on beyond everything answered before.
    @Test func killDashNineLosesNoAcceptedMessage() throws {
        let directory = try TemporaryDirectory()
        let configuration = try burstConfiguration()
        var everything: [Accepted] = []
        let highestVersion = Mutex(0)
        for round in 0..<3 {
            let (child, port) = try ChildProcess.daemon(on: directory.path, configuration: configuration)
            if round > 0 {
                let version = try #require(RawClient.request("GET", "/overlay", port: port).json["version"]?.int)
                #expect(version > highestVersion.withLock { $0 }, "round \(round)")
                let lost = missing(everything, port: port)
                #expect(lost.isEmpty, "round \(round): \(lost.count) lost, first \(lost.prefix(3))")
            }
            let log = AcceptedLog()
            let pid = child.pid
            burst(port: port, threads: 8, round: round, log: log) {
                // A reader follows the version (it sees changes before they are on disk); the kill
                // comes at a different point of the burst each round, while every thread is busy
                // posting: after 100, 150, 200 answered writes.
                let target = 100 + 50 * round
                _ = eventually {
                    if let version = try? RawClient.request("GET", "/overlay", port: port).json["version"]?.int {
                        highestVersion.withLock { $0 = max($0, version) }
                    }
                    return log.count >= target
                }
                kill(pid, SIGKILL)
            }
            #expect(child.exitStatus() == -SIGKILL)
            let accepted = log.all
            #expect(accepted.count >= 100 + 50 * round, "round \(round): only \(accepted.count) accepted")
            #expect(Set(accepted.map(\.id)).count == accepted.count)
            #expect(Set(everything.map(\.id)).isDisjoint(with: accepted.map(\.id)))
            everything += accepted
        }
        let (child, port) = try ChildProcess.daemon(on: directory.path, configuration: configuration)
        let lost = missing(everything, port: port)
        #expect(lost.isEmpty, "\(lost.count) of \(everything.count) lost, first \(lost.prefix(3))")
        let fresh = try RawClient.request("POST", "/messages", port: port, body: "after three crashes")
        #expect(try #require(fresh.json["id"]?.int) > everything.map(\.id).max() ?? 0)
        let version = try #require(RawClient.request("GET", "/overlay", port: port).json["version"]?.int)
        #expect(version > highestVersion.withLock { $0 })
        kill(child.pid, SIGKILL)
    }

    /// SIGTERM during a burst: the writes in flight meanwhile end, the process exits 0, and every
    /// 202 answered before is there afterwards.
    @Test func sigtermDuringBurstKeepsEveryAcceptedMessage() throws {
        let directory = try TemporaryDirectory()
        let configuration = try burstConfiguration()
        let (child, port) = try ChildProcess.daemon(on: directory.path, configuration: configuration)
        let log = AcceptedLog()
        let status = Mutex<Int32?>(nil)
        burst(port: port, threads: 8, round: 0, log: log) {
            _ = eventually { log.count >= 100 }
            child.kill(SIGTERM)
            // The burst goes on until the process has ended: its threads see the server stop.
            status.withLock { $0 = child.exitStatus() }
        }
        #expect(status.withLock { $0 } == 0, "stderr: \(child.errorText.suffix(500))")
        #expect(child.errorText.contains("overlayd stopped"))
        let accepted = log.all
        #expect(accepted.count >= 100)

        try expectNoneLostAfterRestart(accepted, directory: directory.path, configuration: configuration)
    }
}

/// A commit that fails (here: the file size limit, as a full disk would) is answered 503
/// `storage_failed`, never 202 or 200, and undone; the process goes on serving and stops cleanly.
@Suite("Storage failure")
struct StorageFailureTests {
    @Test func failedCommitsAreNotAnsweredAsStored() throws {
        let directory = try TemporaryDirectory()
        let configuration = try burstConfiguration()
        // SIGXFSZ ignored, so that a write past the limit fails with EFBIG instead of killing.
        let script = #"trap "" XFSZ; ulimit -f 200; exec "$0" "$@""#
        let child = try ChildProcess.overlayd(
            [
                "-c", script, try OverlaydExecutable.path(), "--port", "0", "--clock", "manual", "--data-dir",
                directory.path, "--config", configuration.path,
            ], executable: "/bin/sh")
        let port = try #require(child.listeningPort(), "stderr: \(child.errorText)")
        let long = String(repeating: "x", count: 250)
        var accepted: [Accepted] = []
        var refused: HTTPReply?
        for index in 0..<500 where refused == nil {
            let response = try RawClient.request("POST", "/messages", port: port, body: "\(index) \(long)")
            if response.status == 202, let id = response.json["id"]?.int {
                accepted.append(Accepted(id: id, text: response.json["text"]?.string ?? ""))
            } else {
                refused = response
            }
        }
        let failed = try #require(refused, "the file size limit was never reached")
        #expect(!accepted.isEmpty)
        expectError(failed, status: 503, code: "storage_failed")
        #expect(failed.header("Retry-After") == "1")

        // A keyed POST that could not be stored is undone, so its retry creates the message
        // again, and is refused again while the disk refuses: never a 200 for a message that
        // was never stored.
        let keyed = #"{"key": "upload-7", "text": "keyed"}"#
        let json = [("Content-Type", "application/json")]
        let first = try RawClient.request("POST", "/messages", port: port, headers: json, body: keyed)
        expectError(first, status: 503, code: "storage_failed")
        let retried = try RawClient.request("POST", "/messages", port: port, headers: json, body: keyed)
        expectError(retried, status: 503, code: "storage_failed")

        // Reads go on; the process stops cleanly and names the failure in its log.
        #expect(try RawClient.request("GET", "/healthz", port: port).status == 200)
        #expect(try RawClient.request("GET", "/messages", port: port).status == 200)
        kill(child.pid, SIGTERM)
        #expect(child.exitStatus() == 0)
        #expect(child.errorText.contains("storing failed"))

        // Every 202 is there after a restart without the limit.
        try expectNoneLostAfterRestart(accepted, directory: directory.path, configuration: configuration)
    }
}

/// A data directory overlayd cannot use stops start-up with exit status 2 and a message naming
/// the file or directory: overlayd never starts on empty state instead.
@Suite("Unusable data directory")
struct DataDirectoryTests {
    /// Starts overlayd on `directory` and expects exit 2, `named` in the message, and no listening.
    static func expectRefusal(
        _ directory: String, named: String, mentioning reason: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let child = try ChildProcess.overlayd(["--port", "0", "--data-dir", directory, "--access-log=false"])
        #expect(child.exitStatus() == 2, "stderr: \(child.errorText)", sourceLocation: sourceLocation)
        #expect(child.errorText.contains("data error"), "stderr: \(child.errorText)", sourceLocation: sourceLocation)
        #expect(child.errorText.contains(named), "stderr: \(child.errorText)", sourceLocation: sourceLocation)
        if let reason {
            #expect(child.errorText.contains(reason), "stderr: \(child.errorText)", sourceLocation: sourceLocation)
        }
        #expect(!child.errorText.contains("listening"), sourceLocation: sourceLocation)
    }

    /// A file that is not SQLite at all: refused, and left as it was.
    @Test func garbageDatabase() throws {
        let directory = try TemporaryDirectory()
        var garbage = Array("this is not an overlayd database\n".utf8)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<8192 { garbage.append(UInt8.random(in: 0...255, using: &generator)) }
        try Files.write(directory.database, garbage)
        try DataDirectoryTests.expectRefusal(directory.path, named: directory.database, mentioning: "not a database")
        #expect(Files.read(directory.database) == garbage)
    }

    /// A real database cut off in the middle (a torn copy, a full disk): refused.
    @Test func truncatedDatabase() throws {
        let directory = try TemporaryDirectory()
        let configuration = try burstConfiguration()
        let (child, port) = try ChildProcess.daemon(on: directory.path, configuration: configuration)
        let long = String(repeating: "x", count: 250)
        for index in 0..<300 {
            let posted = try RawClient.request("POST", "/messages", port: port, body: "\(index) \(long)")
            #expect(posted.status == 202)
        }
        kill(child.pid, SIGTERM)
        #expect(child.exitStatus() == 0)
        // Everything into the database file itself (as a checkpoint, or a copy of a backup, has it).
        do {
            let database = try Database(path: directory.database)
            try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        let bytes = try #require(Files.read(directory.database))
        #expect(bytes.count > 32 * 1024)
        try Files.write(directory.database, Array(bytes.prefix(bytes.count / 2)))
        try DataDirectoryTests.expectRefusal(directory.path, named: directory.database)
        #expect(Files.size(directory.database) == bytes.count / 2)
    }

    /// A data directory that cannot be created or entered. As root chmod does not keep anyone
    /// out, so a path under a regular file stands in for it there.
    @Test func unusableDirectory() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/a-file"
        try Files.write(file, Array("not a directory".utf8))
        try DataDirectoryTests.expectRefusal(file + "/data", named: file + "/data")
        try DataDirectoryTests.expectRefusal(file, named: file, mentioning: "not a directory")
        if getuid() != 0 {
            let locked = directory.path + "/locked"
            #expect(mkdir(locked, 0o755) == 0)
            #expect(chmod(locked, 0) == 0)
            try DataDirectoryTests.expectRefusal(locked, named: locked)
            try DataDirectoryTests.expectRefusal(locked + "/data", named: locked + "/data")
        }
    }

    /// A database (or its write-ahead log) that cannot be written: SQLite would open it read-only
    /// and every commit would fail, so start-up stops. Permissions do not bind root, so as root
    /// overlayd runs as `nobody` (setpriv) on a directory that `nobody` owns.
    @Test(
        .enabled(if: getuid() != 0 || access("/usr/bin/setpriv", X_OK) == 0),
        arguments: ["overlayd.sqlite", "overlayd.sqlite-wal"])
    func readOnlyDatabase(file: String) throws {
        let directory = try TemporaryDirectory()
        let configuration = try burstConfiguration()
        let (child, port) = try ChildProcess.daemon(on: directory.path, configuration: configuration)
        #expect(try RawClient.request("POST", "/messages", port: port, body: "kept").status == 202)
        kill(child.pid, SIGKILL)
        _ = child.exitStatus()
        #expect(chmod(directory.path + "/" + file, 0o444) == 0)
        var launcher: [String] = []
        if getuid() == 0 {
            let nobody: uid_t = 65534
            chmod(directory.path, 0o755)
            for name in ["", "/overlayd.sqlite", "/overlayd.sqlite-wal", "/overlayd.lock"] {
                chown(directory.path + name, nobody, gid_t(nobody))
            }
            launcher = ["--reuid=65534", "--regid=65534", "--clear-groups", try OverlaydExecutable.path()]
            // The executable must be reachable for nobody too.
            let probe = try ChildProcess.overlayd(launcher + ["--version"], executable: "/usr/bin/setpriv")
            guard probe.exitStatus() == 0 else {
                print("readOnlyDatabase: overlayd cannot be run as nobody here; not checked")
                return
            }
        }
        let refused = try ChildProcess.overlayd(
            launcher + ["--port", "0", "--data-dir", directory.path, "--access-log=false"],
            executable: launcher.isEmpty ? nil : "/usr/bin/setpriv")
        #expect(refused.exitStatus() == 2, "stderr: \(refused.errorText)")
        #expect(refused.errorText.contains(directory.database), "stderr: \(refused.errorText)")
        #expect(refused.errorText.contains("cannot be written"), "stderr: \(refused.errorText)")
        #expect(!refused.errorText.contains("listening"))
    }

    /// A second overlayd on a data directory in use exits 2; the first goes on serving.
    @Test func secondProcessOnTheSameDirectory() throws {
        let directory = try TemporaryDirectory()
        let configuration = try burstConfiguration()
        let (first, port) = try ChildProcess.daemon(on: directory.path, configuration: configuration)
        #expect(try RawClient.request("POST", "/messages", port: port, body: "first").status == 202)
        try DataDirectoryTests.expectRefusal(directory.path, named: directory.path, mentioning: "in use")
        #expect(try RawClient.request("POST", "/messages", port: port, body: "still first").status == 202)
        #expect(try RawClient.request("GET", "/messages/2", port: port).json["text"]?.string == "still first")
        kill(first.pid, SIGTERM)
        #expect(first.exitStatus() == 0)
    }

    /// A store holds its directory until `close()`, not until its last reference goes: a store
    /// reopened in the same process right after (a test's restart) found it still locked when the
    /// closed one's last release came late.
    @Test func closeFreesTheDirectory() throws {
        let directory = try TemporaryDirectory()
        let first = try OverlayStore(directory: directory.path)
        first.start()
        #expect(throws: StoreError.self) { _ = try OverlayStore(directory: directory.path) }
        first.close()
        let second = try OverlayStore(directory: directory.path)
        second.start()
        #expect(throws: StoreError.self) { _ = try OverlayStore(directory: directory.path) }
        second.close()
        withExtendedLifetime(first) {}
    }

    /// A database written by a newer overlayd (a higher schema_version) is not touched.
    @Test func newerSchema() throws {
        let directory = try TemporaryDirectory()
        do {
            let store = try OverlayStore(directory: directory.path)
            store.close()
        }
        do {
            let database = try Database(path: directory.database)
            try database.execute("UPDATE schema_version SET version = \(Schema.latest + 1)")
        }
        try DataDirectoryTests.expectRefusal(
            directory.path, named: directory.database, mentioning: "schema version \(Schema.latest + 1)")
        let database = try Database(path: directory.database)
        let version = try database.prepare("SELECT version FROM schema_version")
        #expect(try version.step())
        #expect(version.int(0) == Schema.latest + 1)
    }
}
