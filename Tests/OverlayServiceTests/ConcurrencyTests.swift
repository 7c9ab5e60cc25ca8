import Platform
import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// Many clients at once, each on its own thread and connection, against one real server.
@Suite("Concurrent clients")
struct ConcurrencyTests {
    /// 8 threads × 50 POSTs: every answer is 202, the ids are exactly 1…400 with none twice, and
    /// GET /messages lists all 400 in id order (the queue order is the order ids were given).
    @Test func concurrentPosts() throws {
        let threads = 8
        let perThread = 50
        let total = threads * perThread
        try withLiveServer(configure: { $0.engine.maxQueue = total }) { live in
            let results = Lock<[(thread: Int, status: Int, id: Int?, text: String?)]>([])
            let failures = Lock<[String]>([])
            let port = live.port
            onThreads(threads) { thread in
                for index in 0..<perThread {
                    do {
                        let response = try RawClient.request(
                            "POST", "/messages?kind=sent", port: port, headers: [("Content-Type", "text/plain")],
                            body: "thread \(thread) message \(index)")
                        results.withLock {
                            $0.append(
                                (thread, response.status, response.json["id"]?.int, response.json["text"]?.string))
                        }
                    } catch {
                        failures.withLock { $0.append("thread \(thread) message \(index): \(error)") }
                    }
                }
            }
            #expect(failures.withLock { $0 } == [])
            let answers = results.withLock { $0 }
            #expect(answers.count == total)
            #expect(answers.allSatisfy { $0.status == 202 })
            let ids = answers.compactMap(\.id).sorted()
            #expect(ids == Array(1...total))
            // Each thread's own messages got increasing ids: a client's order is kept.
            for thread in 0..<threads {
                let own = answers.filter { $0.thread == thread }.compactMap(\.id)
                #expect(own == own.sorted(), "thread \(thread)")
            }

            let list = try live.get("/messages?limit=1000").json["messages"]?.array ?? []
            #expect(list.count == total)
            #expect(list.compactMap { $0["id"]?.int } == Array(1...total))
            let textByID = Dictionary(
                uniqueKeysWithValues: answers.compactMap { answer in answer.id.map { ($0, answer.text) } })
            #expect(list.allSatisfy { textByID[$0["id"]?.int ?? 0] == $0["text"]?.string })
            let overlay = try live.overlay()
            #expect(overlay["queued"]?.int == total - 1)
            #expect(overlay["version"]?.int == total)
            #expect(overlay["message"]?["id"]?.int == 1)
        }
    }

    /// 8 clients DELETE the same message at once: exactly one ends it (200), the rest get 409.
    @Test func concurrentDeletesOfOneMessage() throws {
        try withLiveServer(started: LiveServer.startedWithTwoMessages()) { live throws in
            let statuses = Lock<[Int]>([])
            let port = live.port
            onThreads(8) { _ in
                let status = (try? RawClient.request("DELETE", "/messages/2", port: port).status) ?? 0
                statuses.withLock { $0.append(status) }
            }
            let all = statuses.withLock { $0 }.sorted()
            #expect(all == [200] + Array(repeating: 409, count: 7))
            #expect(try live.get("/messages/2").json["state"]?.string == "cancelled")
            #expect(try live.overlay()["queued"]?.int == 0)
        }
    }

    /// Readers, writers and the clock at once: every answer is a success, and the state afterwards
    /// is consistent (each message once, versions never go back for any reader).
    @Test func mixedReadersAndWriters() throws {
        try withLiveServer(configure: { $0.engine.maxQueue = 10_000 }) { live in
            let port = live.port
            let problems = Lock<[String]>([])
            onThreads(8) { thread in
                var lastVersion = -1
                for index in 0..<30 {
                    do {
                        switch thread % 4 {
                        case 0:
                            let response = try RawClient.request(
                                "POST", "/messages", port: port, body: "m\(thread)-\(index)")
                            if response.status != 202 { problems.withLock { $0.append("POST \(response.status)") } }
                        case 1:
                            let response = try RawClient.request("GET", "/overlay", port: port)
                            let version = response.json["version"]?.int ?? -2
                            if response.status != 200 || version < lastVersion {
                                problems.withLock {
                                    $0.append("GET /overlay \(response.status) v\(version) < v\(lastVersion)")
                                }
                            }
                            lastVersion = version
                        case 2:
                            let response = try RawClient.request(
                                "POST", "/clock", port: port, headers: [("Content-Type", "application/json")],
                                body: #"{"advance": 0.1}"#)
                            if response.status != 200 {
                                problems.withLock { $0.append("POST /clock \(response.status)") }
                            }
                        default:
                            let response = try RawClient.request("GET", "/messages", port: port)
                            if response.status != 200 || response.json["messages"]?.array == nil {
                                problems.withLock { $0.append("GET /messages \(response.status)") }
                            }
                        }
                    } catch {
                        problems.withLock { $0.append("thread \(thread): \(error)") }
                    }
                }
            }
            #expect(problems.withLock { $0 } == [])
            // 60 posts; the clock moved 60 × 0.1 = 6 s, so some have been shown and done.
            #expect(try live.get("/clock").json["now"]?.number == 6)
            let liveIDs = try live.get("/messages").json["messages"]?.array?.compactMap { $0["id"]?.int } ?? []
            #expect(liveIDs == liveIDs.sorted())
            #expect(Set(liveIDs).count == liveIDs.count)
            #expect(liveIDs.last == 60)
            for id in 1..<(liveIDs.first ?? 1) {
                #expect(try live.get("/messages/\(id)").json["state"]?.string == "done")
            }
        }
    }
}
