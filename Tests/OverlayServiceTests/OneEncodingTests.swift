import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// Every path that answers with the overlay (a fill of the version's kept template, the kept
/// answer sent again, a long-poll answered at once, an event stream's first event, a write's
/// answer, a fan-out to parked readers and streams) gives the same bytes for the same version and
/// instant: there is one encoding.
@Suite("One encoding of the overlay")
struct OneEncodingTests {
    @Test func everyPathGivesTheSameBytes() throws {
        // Manual clock: every answer below is of the same instant.
        try withLiveServer { live throws in
            #expect(try live.request("POST", "/messages?kind=sending", body: "Sending…").status == 202)
            #expect(try live.advance(0.125).json["now"]?.number == 0.125)
            let version = try #require(try live.version())
            let filled = try live.get("/overlay")
            let again = try live.get("/overlay")
            let longPoll = try StreamClient(port: live.port, path: "/overlay?wait=5&since=\(version - 1)").response()
            let stream = try StreamClient.events(port: live.port)
            let first = try #require(stream.nextEvent())
            #expect(filled.json["contentOffset"]?.number == -10)
            #expect(again.text == filled.text)
            #expect(longPoll.text == filled.text)
            #expect(first.field("id") == "\(version)")
            #expect(first.field("data") == filled.text)

            // A change answers a parked long-poll and the stream from one encoding, the write itself
            // from another: all three, and a read after, the same bytes.
            let waiter = try StreamClient(port: live.port, path: "/overlay?wait=60&since=\(version)")
            #expect(try live.waitForMetric("overlayd_long_poll_waiters", toBe: 1))
            let written = try live.request("PUT", "/device", body: "ipad-pro-11")
            #expect(written.status == 200)
            let fanned = try waiter.response()
            let event = try #require(stream.nextEvent())
            let read = try live.get("/overlay")
            #expect(written.json["version"]?.int == version + 1)
            #expect(fanned.text == written.text)
            #expect(event.field("data") == written.text)
            #expect(read.text == written.text)
        }
    }
}
