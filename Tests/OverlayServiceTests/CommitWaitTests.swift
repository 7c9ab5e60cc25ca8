import Platform
import ServiceTestSupport
import TestSupport
import Testing

@testable import MicroHTTP
@testable import OverlayEngine
@testable import OverlayService
@testable import OverlayStore

#if canImport(Glibc)
    import Glibc
#endif

/// A write waiting for its commit, and the once-a-second sweep of readers whose clients left.
@Suite("Writes waiting for their commit")
struct CommitWaitTests {
    /// A failed commit's writers are answered only once its channels are rolled back: asked
    /// during the rollback, the sequence is not resolved yet (it once was, and a 503 could reach a
    /// client that then read the state the failed write left, not yet undone).
    @Test func aFailedCommitIsAnsweredAfterItsRollback() throws {
        let directory = try TemporaryDirectory()
        let store = try OverlayStore(directory: directory.path)
        let during = Lock<[String]>([])
        let sequence = Lock<UInt64>(0)
        store.start { channel, _ in
            let submitted = sequence.withLock { $0 }
            store.whenDurable(submitted) { durable in during.withLock { $0.append("answered \(durable)") } }
            during.withLock { $0.append("rolled back \(channel)") }
        }
        defer { store.close() }
        var engine = OverlayEngine(configuration: EngineConfiguration())
        let changes = engine.post(MessageInput(text: "lost"), at: .zero).changes
        store.failNextCommits(1)
        let submitted = sequence.withLock { value in
            value = store.submit(ChannelRecord(name: "c", engine: engine, changes: changes))
            return value
        }
        #expect(!store.waitUntilDurable(submitted))
        // The callbacks run on the writer thread once the sequence is resolved: wait for the answer.
        #expect(eventually { during.withLock { $0.count } == 2 })
        #expect(during.withLock { $0 } == ["rolled back c", "answered false"])
    }

    /// A sequence this store never gave (one a closed store gave) is answered false at once, not
    /// waited for forever; one it gave is true once committed.
    @Test func aSequenceNeverGivenIsNotWaitedFor() throws {
        let directory = try TemporaryDirectory()
        let store = try OverlayStore(directory: directory.path)
        store.start()
        defer { store.close() }
        #expect(store.waitUntilDurable(0))
        #expect(!store.waitUntilDurable(1))
        #expect(!store.waitUntilDurable(.max))
    }

    /// A write waiting for its commit is answered once the commit is done, although its client
    /// half-closed the connection after sending (as `RawClient.request` does, and `nc -N`): the once-a-
    /// second sweep that ends readers whose clients left must not take it for gone. It once did,
    /// and the client of a stored message got a 499 instead of its 202.
    @Test func writeWaitingForItsCommitOutlivesTheSweep() throws {
        let directory = try TemporaryDirectory()
        try withLiveServer(started: LiveServer.durable(on: directory)) { live in
            #expect(try live.post("/messages", json: #"{"text": "first"}"#).status == 202)
            let store = try #require(live.server.service.store)
            // The writer holds the next commit (the POST's) until the sweep has looked: no clock (such
            // as SQLite's busy timeout, were another connection to hold its lock) runs meanwhile.
            store.flush()
            store.holdNextCommit()
            defer { store.releaseHeldCommit() }
            let posted = Lock<HTTPReply?>(nil)
            let reaped = Lock<Int?>(nil)
            onThreads(2) { thread in
                if thread == 0 {
                    let response = try? RawClient.request("POST", "/messages", port: live.port, body: "held")
                    posted.withLock { $0 = response }
                    return
                }
                // The write waits for its commit, and its client's half-close has reached the server
                // (the server's side of the connection is in CLOSE_WAIT): what the sweep looks at.
                let halfClosed = eventually {
                    !live.server.http.parked.noResponders
                        && TCPTable().served(onPort: live.port, in: .closeWait).count == 1
                }
                reaped.withLock { $0 = halfClosed ? live.server.http.reapDisconnected() : nil }
                store.releaseHeldCommit()
            }
            #expect(reaped.withLock { $0 } == 0)
            let response = try #require(posted.withLock { $0 })
            #expect(response.status == 202)
            #expect(response.json["text"]?.string == "held")
            #expect(try live.get("/messages").json["messages"]?.array?.count == 2)
        }
    }
}
