import ServiceTestSupport
import TestSupport
import Testing

@testable import MicroHTTP
@testable import OverlayService

#if canImport(Glibc)
    import Glibc
#endif

@Suite("Graceful stop")
struct StopTests {
    /// Draining: a long-poll parked before the stop is answered 503 at once, and a new request on
    /// a connection that was already open is refused 503 with the connection closed; what was
    /// posted before is untouched.
    @Test func drainingReleasesReadersAndRefusesNewRequests() throws {
        try withLiveServer { live in
            #expect(try live.request("POST", "/messages", body: "kept").status == 202)
            let socket = try Loopback.connect(port: live.port)
            defer { close(socket) }
            try Loopback.write(socket, Array("GET /healthz HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            #expect(try Loopback.readResponse(socket).status == 200)

            let poll = try StreamClient(port: live.port, path: "/overlay?wait=60&since=1")
            // The long-poll has parked once the metric counts it.
            #expect(try live.waitForMetric("overlayd_long_poll_waiters", toBe: 1))

            live.server.http.beginDraining()
            live.server.service.releaseReaders()
            // 503 at once (its wait would end in a 304, and after the client has given up).
            let released = try poll.response()
            #expect(released.status == 503)
            #expect(released.errorCode == "shutting_down")

            try Loopback.write(socket, Array("GET /overlay HTTP/1.1\r\nHost: x\r\n\r\n".utf8))
            let refused = try Loopback.readResponse(socket)
            #expect(refused.status == 503)
            #expect(refused.header("Retry-After") == "1")
            #expect(refused.header("Connection")?.lowercased() == "close")
        }
    }
}

@Suite("Readers that go away")
struct DisconnectedReaderTests {
    /// A parked event stream and a parked long-poll whose clients close their connections are let
    /// go with no change and no heartbeat to find them (the server sweeps parked connections
    /// every second), so they stop counting against the limits.
    @Test func parkedReadersAreSweptWhenTheirClientsGo() throws {
        try withLiveServer(configure: { $0.heartbeatSeconds = 3600 }) { live in
            let stream = try StreamClient.events(port: live.port)
            #expect(stream.nextEvent() != nil)
            let poll = try StreamClient(port: live.port, path: "/overlay?wait=60&since=0")
            #expect(try live.waitForMetric("overlayd_event_streams", toBe: 1))
            #expect(try live.waitForMetric("overlayd_long_poll_waiters", toBe: 1))
            #expect(live.server.http.inFlight.value() >= 2)

            stream.close()
            poll.close()
            #expect(try live.waitForMetric("overlayd_event_streams", toBe: 0))
            #expect(try live.waitForMetric("overlayd_long_poll_waiters", toBe: 0))
            // Both connections are closed by the server, not only forgotten by the channel.
            #expect(eventually { live.server.http.inFlight.value() == 0 })
        }
    }
}
