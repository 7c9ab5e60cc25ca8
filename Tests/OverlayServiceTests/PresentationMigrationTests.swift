import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService
@testable import OverlayStore

/// A data directory from before the presentations (schema 4) opens: every message is kept, with
/// no subtitle or icon, and its channel takes the configured presentation.
@Suite("Schema 5 migration")
struct PresentationMigrationTests {
    /// Three messages (shown, queued, ended) of a schema-4 directory come back after the
    /// migration; a subtitle and an icon given then are stored, and the presentation PUT is kept.
    @Test func schemaFourKeepsEveryMessage() throws {
        let directory = try TemporaryDirectory()
        try StoredState.write(
            in: directory, schema: 4,
            rows: """
                INSERT INTO channels (name, version, version_reserved, next_id, next_id_reserved, orientation, device,
                  now_ns, phase, current_id, tail_order)
                  VALUES ('default', 12, 100012, 4, 1004, 'portrait', 'iphone-15-pro', 2000000000, 'visible', 2, 3);
                INSERT INTO messages (channel, id, kind, text, immediate, state, posted_at_ns, ended_at_ns,
                  queue_order, history_seq)
                  VALUES ('default', 1, 'sent', 'ended before', 0, 'done', 0, 1000000000, 1, 1);
                INSERT INTO messages (channel, id, kind, text, immediate, state, posted_at_ns, queue_order)
                  VALUES ('default', 2, 'sending', 'shown', 0, 'showing', 500000000, 2);
                INSERT INTO messages (channel, id, kind, text, immediate, key, state, posted_at_ns, queue_order)
                  VALUES ('default', 3, 'info', 'waiting', 0, 'w', 'queued', 600000000, 3);
                """)
        do {
            try withLiveServer(
                started: LiveServer.durable(on: directory) { $0.engine.presentation = .fullWidth }
            ) { live in
                for (id, text) in [(1, "ended before"), (2, "shown"), (3, "waiting")] {
                    let message = try live.get("/messages/\(id)").json
                    #expect(message["text"]?.string == text)
                    #expect(message["subtitle"] == JSONValue.null)
                    #expect(message["icon"] == JSONValue.null)
                }
                let overlay = try live.overlay()
                #expect(overlay["presentation"]?.string == "fullWidth")
                #expect(overlay["message"]?["text"]?.string == "shown")
                #expect(overlay["queued"]?.int == 1)
                let patched = try live.request("PATCH", "/messages/3", body: "subtitle=later&icon=%F0%9F%95%92")
                #expect(patched.status == 200)
                #expect(try live.request("PUT", "/presentation", body: "pill").status == 200)
            }
        }
        try withLiveServer(
            started: LiveServer.durable(on: directory) { $0.engine.presentation = .fullWidth }
        ) { live in
            let waiting = try live.get("/messages/3").json
            #expect(waiting["subtitle"]?.string == "later")
            #expect(waiting["icon"]?.string == "🕒")
            #expect(try live.overlay()["presentation"]?.string == "pill")
            #expect(try live.get("/messages").json["messages"]?.array?.count == 2)
        }
    }
}
