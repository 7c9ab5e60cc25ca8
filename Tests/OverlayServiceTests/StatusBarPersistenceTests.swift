import ServiceTestSupport
import Synchronization
import TestSupport
import Testing

@testable import OverlayService
@testable import OverlayStore

#if canImport(Glibc)
    import Glibc
#endif

/// The status bar is durable like the rest of a channel (docs/STATUSBAR.md "Durability"): its
/// style, hidden flag, animations and hierarchy survive a restart and a `kill -9`, and a data
/// directory of the schema before the status bar migrates.
@Suite("Status bar: durability")
struct StatusBarPersistenceTests {
    static let controllers: @Sendable (inout ServiceConfiguration) -> Void = {
        $0.engine.statusBar.appearance = .controllers
    }

    /// A bar hidden with a slide and restyled, with messages held behind it, in two channels: after
    /// a restart it is at rest where it was (offset −h), the queue still held in its order; the
    /// animation for the next change is kept; showing it releases the queue.
    @Test func restartKeepsTheBarAndTheHold() throws {
        var before: JSONValue = .null
        var version = 0
        try withRestart { live in
            #expect(try live.post("/messages", json: #"{"text": "first"}"#).status == 202)
            try live.advance(1)
            let put = try live.request(
                "PUT", "/statusbar", body: #"{"style": "darkContent", "hidden": true, "animation": "slide"}"#)
            #expect(put.status == 200)
            #expect(try live.post("/messages", json: #"{"text": "second"}"#).status == 202)
            #expect(try live.request("PUT", "/channels/other/statusbar?hidden=true&animation=none").status == 200)
            try live.advance(0.1)
            before = try live.get("/statusbar").json
            version = try #require(live.overlay()["version"]?.int)
        } then: { live in
            let state = try live.get("/statusbar").json
            #expect(state["statusBar"]?["style"]?.string == "darkContent")
            #expect(state["statusBar"]?["hidden"]?.bool == true)
            #expect(state["statusBar"]?["offset"]?.number == -20)
            #expect(state["statusBar"]?["alpha"]?.number == 0)
            #expect(state["statusBar"]?["animation"] == .null)
            #expect(state["updateAnimation"] == before["updateAnimation"])
            #expect(try #require(state["version"]?.int) > version)
            let overlay = try live.overlay()
            #expect(overlay["held"]?.bool == true)
            #expect(overlay["phase"]?.string == "hidden")
            #expect(overlay["queued"]?.int == 2)
            #expect(overlay["style"] == .null)
            #expect(
                try live.get("/messages").json["messages"]?.array?.compactMap { $0["text"]?.string } == [
                    "first", "second",
                ])
            #expect(try live.get("/channels/other/statusbar").json["statusBar"]?["hidden"]?.bool == true)
            #expect(try live.get("/channels/other/statusbar").json["statusBar"]?["offset"]?.number == 0)

            let shown = try live.request("PUT", "/statusbar?hidden=false")
            #expect(shown.json["phase"]?.string == "showing")
            #expect(shown.json["message"]?["text"]?.string == "first")
            #expect(shown.json["statusBar"]?["animation"]?["property"]?.string == "offset")
            #expect(shown.json["style"]?["background"]?.string == "#F2F2F7")
        }
    }

    /// A restart while the bar slides out and the overlay hides beside it, its message changed in
    /// the queue since: unlike a rollback, which brings that hide back, a restart shows the bar at
    /// rest (hidden, at −h), the overlay hidden and holding the message as it was changed, and the
    /// copy the hide drew is gone from the database once start-up has written the channel.
    @Test func restartDuringTheBarsHideIsAtRest() throws {
        let directory = try TemporaryDirectory()
        func leavingRows() throws -> Int64 {
            let database = try Database(path: directory.database)
            let count = try database.prepare("SELECT count(*) FROM leaving_messages")
            #expect(try count.step())
            return count.int(0)
        }
        do {
            try withLiveServer(started: LiveServer.durable(on: directory)) { live in
                #expect(try live.post("/messages", json: #"{"text": "first"}"#).status == 202)
                try live.advance(1)
                let hide = #"{"hidden": true, "animation": "slide"}"#
                #expect(try live.request("PUT", "/statusbar", body: hide).status == 200)
                try live.advance(0.1)
                #expect(try live.request("PATCH", "/messages/1", body: #"{"text": "changed"}"#).status == 200)
                let overlay = try live.overlay()
                #expect(overlay["phase"]?.string == "hiding")
                #expect(overlay["message"]?["text"]?.string == "first")
                #expect(overlay["statusBar"]?["animation"]?["property"]?.string == "offset")
                #expect(try leavingRows() == 1)
            }
        }
        try withLiveServer(started: LiveServer.durable(on: directory)) { live in
            #expect(try leavingRows() == 0)
            let overlay = try live.overlay()
            #expect(overlay["phase"]?.string == "hidden")
            #expect(overlay["held"]?.bool == true)
            #expect(overlay["message"] == .null)
            #expect(overlay["queued"]?.int == 1)
            #expect(overlay["statusBar"]?["hidden"]?.bool == true)
            #expect(overlay["statusBar"]?["offset"]?.number == -20)
            #expect(overlay["statusBar"]?["animation"] == .null)
            let held = try live.get("/messages/1").json
            #expect(held["state"]?.string == "queued")
            #expect(held["text"]?.string == "changed")
            let shown = try live.request("PUT", "/statusbar?hidden=false")
            #expect(shown.json["phase"]?.string == "showing")
            #expect(shown.json["message"]?["text"]?.string == "changed")
        }
    }

    /// A hierarchy survives a restart with every field, and decides again at start-up; a new
    /// hierarchy replaces it on disk (fewer controllers leave no rows behind). With application
    /// appearance configured since, it is kept and shown, and decides nothing.
    @Test func hierarchySurvives() throws {
        let directory = try TemporaryDirectory()
        let chain = """
            {"root": "main", "controllers": [
              {"name": "main", "childForStatusBarStyle": "tabs", "childForStatusBarHidden": "tabs", "presented": "sheet"},
              {"name": "tabs", "childForStatusBarStyle": "feed", "childForStatusBarHidden": "feed"},
              {"name": "feed", "preferredStatusBarStyle": "lightContent", "preferredStatusBarUpdateAnimation": "slide"},
              {"name": "sheet", "fullScreen": false, "modalPresentationCapturesStatusBarAppearance": true,
               "prefersStatusBarHidden": true, "preferredStatusBarStyle": "darkContent"}]}
            """
        var sent: JSONValue = .null
        do {
            try withLiveServer(started: LiveServer.durable(on: directory, configure: Self.controllers)) { live in
                #expect(try live.request("PUT", "/statusbar/controllers", body: chain).status == 200)
                sent = try live.get("/statusbar").json
                #expect(sent["statusBar"]?["hiddenFrom"]?.string == "sheet")
                #expect(sent["statusBar"]?["hidden"]?.bool == true)
            }
        }
        do {
            try withLiveServer(started: LiveServer.durable(on: directory, configure: Self.controllers)) { live in
                let state = try live.get("/statusbar").json
                #expect(state["hierarchy"] == sent["hierarchy"])
                #expect(state["statusBar"]?["styleFrom"]?.string == "sheet")
                #expect(state["statusBar"]?["hiddenFrom"]?.string == "sheet")
                #expect(state["statusBar"]?["style"]?.string == "darkContent")
                #expect(try live.overlay()["held"]?.bool == true)
                let smaller = #"{"root": "solo", "controllers": [{"name": "solo"}]}"#
                #expect(try live.request("PUT", "/statusbar/controllers", body: smaller).status == 200)
            }
        }
        do {
            try withLiveServer(started: LiveServer.durable(on: directory, configure: Self.controllers)) { live in
                let state = try live.get("/statusbar").json
                #expect(state["hierarchy"]?["controllers"]?.array?.count == 1)
                #expect(state["statusBar"]?["hidden"]?.bool == false)
            }
        }
        let database = try Database(path: directory.database)
        let rows = try database.prepare("SELECT count(*) FROM status_bar_controllers")
        #expect(try rows.step())
        #expect(rows.int(0) == 1)
        try withLiveServer(started: LiveServer.durable(on: directory)) { application in
            let state = try application.get("/statusbar").json
            #expect(state["hierarchy"]?["root"]?.string == "solo")
            #expect(state["statusBar"]?["styleFrom"]?.string == "application")
        }
    }

    /// A data directory of the schema before the status bar (version 3, which keeps the whole
    /// engine but no bar): it migrates, its channels start with the configured launch state, and
    /// their bars are stored from then on.
    @Test func previousSchemaMigrates() throws {
        let directory = try TemporaryDirectory()
        try StoredState.write(
            in: directory, schema: 3,
            rows: """
                INSERT INTO channels (name, version, version_reserved, next_id, next_id_reserved, orientation, device,
                  now_ns, tail_order)
                  VALUES ('default', 12, 100012, 3, 1003, 'portrait', 'iphone', 2000000000, 2);
                INSERT INTO messages (channel, id, kind, text, immediate, state, posted_at_ns, queue_order)
                  VALUES ('default', 2, 'sending', 'waiting', 0, 'queued', 500000000, 2);
                """)
        do {
            try withLiveServer(started: LiveServer.durable(on: directory) { $0.engine.statusBar.hiddenAtLaunch = true })
            {
                live in
                let overlay = try live.overlay()
                #expect(overlay["held"]?.bool == true)
                #expect(overlay["queued"]?.int == 1)
                #expect(overlay["statusBar"]?["frame"]?["width"]?.number == 320)
                #expect(try live.get("/messages/2").json["text"]?.string == "waiting")
                #expect(try live.request("PUT", "/statusbar?style=darkContent").status == 200)
            }
        }
        #expect(try StoredState.schemaVersion(in: directory) == Schema.latest)
        // Launched shown this time: the stored bar wins over the launch state.
        try withLiveServer(started: LiveServer.durable(on: directory)) { live in
            let state = try live.get("/statusbar").json["statusBar"]
            #expect(state?["hidden"]?.bool == true)
            #expect(state?["style"]?.string == "darkContent")
        }
    }

    /// A stored hierarchy that is not one (edited by hand: a cycle) stops start-up, naming the
    /// channel, rather than deciding the bar wrongly.
    @Test func damagedHierarchyIsRefused() throws {
        let directory = try TemporaryDirectory()
        do {
            try withLiveServer(started: LiveServer.durable(on: directory, configure: Self.controllers)) { live throws in
                let body =
                    #"{"root": "a", "controllers": [{"name": "a", "childForStatusBarStyle": "b"}, {"name": "b"}]}"#
                #expect(try live.request("PUT", "/statusbar/controllers", body: body).status == 200)
            }
        }
        do {
            let database = try Database(path: directory.database)
            try database.execute("UPDATE status_bar_controllers SET child_for_style = 'a' WHERE name = 'b'")
        }
        let error = #expect(throws: StoreError.self) {
            _ = try LiveServer.durable(on: directory, configure: Self.controllers)
        }
        #expect(error?.message.contains("channel default") == true)
    }
}

/// `kill -9` while a client sends hierarchies as fast as it can, with the real executable: after a
/// restart the hierarchy is the last one answered 200, or the one after it (committed, not yet
/// answered), and what it decides is consistent with it.
@Suite("Status bar: crash and restart")
struct StatusBarCrashTests {
    /// Hierarchy `n`: a root named `r<n>`, hiding the bar when n is odd, with a style per n.
    static func hierarchy(_ n: Int) -> String {
        let styles = ["default", "lightContent", "darkContent"]
        return """
            {"root": "r\(n)", "controllers": [{"name": "r\(n)", "prefersStatusBarHidden": \(n % 2 == 1),
              "preferredStatusBarStyle": "\(styles[n % 3])", "presented": "m"}, {"name": "m", "fullScreen": false}]}
            """
    }

    /// The latest hierarchy answered 200, shared by the sender and the killer.
    final class Answered: Sendable {
        private let latest = Atomic<Int>(-1)
        var value: Int { latest.load(ordering: .acquiring) }
        func set(_ n: Int) { latest.store(n, ordering: .releasing) }
    }

    @Test func killDashNineKeepsTheLastAnsweredHierarchy() throws {
        let directory = try TemporaryDirectory()
        let configuration = try ConfigurationFile(
            #"{"accessLog": false, "limits": {"writesPerSecond": 0}, "statusBar": {"appearance": "controllers"}}"#)
        let (child, port) = try ChildProcess.daemon(on: directory.path, configuration: configuration)
        #expect(try RawClient.request("POST", "/messages", port: port, body: "kept").status == 202)
        let answered = Answered()
        let pid = child.pid
        onThreads(2) { thread in
            if thread == 0 {
                var n = 0
                while let response = try? RawClient.request(
                    "PUT", "/statusbar/controllers", port: port, body: StatusBarCrashTests.hierarchy(n)),
                    response.status == 200
                {
                    answered.set(n)
                    n += 1
                }
            } else {
                _ = eventually { answered.value >= 50 }
                kill(pid, SIGKILL)
            }
        }
        #expect(child.exitStatus() == -SIGKILL)
        let last = answered.value
        #expect(last >= 50)

        let (restarted, newPort) = try ChildProcess.daemon(on: directory.path, configuration: configuration)
        defer { kill(restarted.pid, SIGKILL) }
        let state = try RawClient.request("GET", "/statusbar", port: newPort).json
        let root = try #require(state["hierarchy"]?["root"]?.string)
        let n = try #require(Int(root.dropFirst()))
        #expect(n == last || n == last + 1, "restored r\(n), last answered r\(last)")
        #expect(state["statusBar"]?["hidden"]?.bool == (n % 2 == 1))
        #expect(state["statusBar"]?["style"]?.string == ["default", "lightContent", "darkContent"][n % 3])
        #expect(state["statusBar"]?["styleFrom"]?.string == root)
        #expect(state["hierarchy"]?["controllers"]?[1]?["fullScreen"]?.bool == false)
        let overlay = try RawClient.request("GET", "/overlay", port: newPort).json
        #expect(overlay["held"]?.bool == (n % 2 == 1))
        #expect(try RawClient.request("GET", "/messages/1", port: newPort).json["text"]?.string == "kept")
    }
}
