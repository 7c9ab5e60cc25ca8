import Platform
import ServiceTestSupport
import TestSupport
import Testing

@testable import MicroHTTP
@testable import OverlayService

#if canImport(Glibc)
    import Glibc
#endif

/// Many readers held at once, and a server stopped with readers open: the server stays free, one
/// change reaches them all, and a stop answers or closes every one.
@Suite("Held readers")
struct HeldReaderTests {
    /// 300 connections held at once (150 event streams and 150 long-polls) do not stall the server,
    /// with libmicrohttpd's pool of 2 threads and with a single thread: ordinary requests are
    /// answered meanwhile, and one change reaches every stream and every waiter. (How fast,
    /// `bench/latency` measures.)
    @Test(arguments: [2, 1])
    func threeHundredHeldConnections(threads: Int) throws {
        try withLiveServer(
            started: LiveServer {
                $0.threads = threads
                $0.connectionsPerClient = 0
            }
        ) { live in
            let port = live.port
            var streams: [StreamClient] = []
            var waiters: [StreamClient] = []
            for index in 0..<300 {
                if index % 2 == 0 {
                    streams.append(try StreamClient.events(port: port))
                } else {
                    waiters.append(try StreamClient(port: port, path: "/overlay?wait=60&since=0"))
                }
            }
            #expect(try live.waitForMetric("overlayd_event_streams", toBe: 150))
            #expect(try live.waitForMetric("overlayd_long_poll_waiters", toBe: 150))
            for stream in streams { #expect(stream.nextEvent()?.version == 0) }

            let failures = Lock(0)
            onThreads(4) { _ in
                for _ in 0..<25 {
                    let status = (try? RawClient.request("GET", "/healthz", port: port).status) ?? 0
                    if status != 200 { failures.withLock { $0 += 1 } }
                }
            }
            #expect(failures.withLock { $0 } == 0)

            #expect(try live.post("/messages", json: #"{"text": "to all"}"#).status == 202)
            var seen = 0
            for stream in streams where stream.nextEvent()?.version == 1 { seen += 1 }
            var answered = 0
            for waiter in waiters {
                let response = try waiter.response()
                if response.status == 200 && response.json["version"]?.int == 1 { answered += 1 }
            }
            #expect(seen == 150)
            #expect(answered == 150)
        }
    }

    /// Stopping the server with open streams (one of them never read) and parked long-polls: the
    /// stop returns, waiters get 503, streams end, and nothing new is accepted.
    @Test func stopWithOpenStreamsAndWaiters() throws {
        try withLiveServer(configure: { $0.heartbeatSeconds = 0.1 }) { live in
            let port = live.port
            let streams = try (0..<10).map { _ in try StreamClient.events(port: port) }
            let stuck = try StreamClient.events(port: port, receiveBufferBytes: 4096)
            let waiters = try (0..<10).map { _ in try StreamClient(port: port, path: "/overlay?wait=60&since=0") }
            #expect(try live.waitForMetric("overlayd_long_poll_waiters", toBe: 10))
            #expect(try live.waitForMetric("overlayd_event_streams", toBe: 11))
            for stream in streams { #expect(stream.nextEvent()?.version == 0) }
            // Fill the stuck client's socket and the server's buffer for it.
            #expect(try live.post("/messages", json: #"{"text": "x", "kind": "sending"}"#).status == 202)
            let padding = String(repeating: "𝄞", count: 250)
            for index in 0..<300 {
                _ = try live.request(
                    "PATCH", "/messages/1", headers: [("Content-Type", "text/plain")], body: "\(index) \(padding)")
            }
            let waiterAnswers = try waiters.map { try $0.response() }
            #expect(waiterAnswers.allSatisfy { $0.status == 200 })
            let version = try #require(try live.version())
            let more = try (0..<10).map { _ in try StreamClient(port: port, path: "/overlay?wait=60&since=\(version)") }
            #expect(try live.waitForMetric("overlayd_long_poll_waiters", toBe: 10))

            live.server.stop(grace: 1)
            for waiter in more {
                let response = try waiter.response()
                #expect(response.status == 503)
                #expect(response.errorCode == "shutting_down")
            }
            for stream in streams { #expect(stream.waitForClose()) }
            #expect(stuck.waitForClose())
            #expect(throws: (any Error).self) { try RawClient.request("GET", "/healthz", port: port) }
        }
    }

    /// `withLiveServer` stops its server when its body returns: with streams and long-polls
    /// open it returns, and every held client is answered or closed.
    @Test func stopAtTheEndOfItsScope() throws {
        var streams: [StreamClient] = []
        var waiters: [StreamClient] = []
        try withLiveServer(configure: { $0.heartbeatSeconds = 0.1 }) { live in
            streams = try (0..<20).map { _ in try StreamClient.events(port: live.port) }
            waiters = try (0..<20).map { _ in try StreamClient(port: live.port, path: "/overlay?wait=60&since=0") }
            #expect(try live.waitForMetric("overlayd_long_poll_waiters", toBe: 20))
            #expect(try live.waitForMetric("overlayd_event_streams", toBe: 20))
        }
        for waiter in waiters { #expect(try waiter.response().status == 503) }
        for stream in streams { #expect(stream.waitForClose()) }
    }
}
