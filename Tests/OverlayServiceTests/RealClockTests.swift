import OverlayEngine
import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

#if canImport(Glibc)
    import Glibc
#endif

/// `clock: real` (MODEL §6): timers fire on their own; a reader only polls.
@Suite("Real clock")
struct RealClockTests {
    /// A real-clock server whose shows and hides take `animations` seconds and whose `info`
    /// messages stay `info` seconds: short, so that a test sees them run on their own.
    static func server(animations: Double, info: Double) throws -> LiveServer {
        try LiveServer(clock: .real) {
            $0.engine.showDuration = .seconds(animations)
            $0.engine.hideDuration = .seconds(animations)
            $0.engine.durations[.info] = .seconds(info)
        }
    }

    /// Shows for 0.05 s, displays for 0.2 s, hides for 0.05 s: a posted message shows, then hides
    /// on its own while the test only reads.
    @Test func messageShowsAndHidesOnItsOwn() throws {
        try withLiveServer(started: Self.server(animations: 0.05, info: 0.2)) { live in
            // With the real clock versions start at the wall-clock microseconds.
            let first = try #require(live.overlay()["version"]?.int)
            #expect(first > 1_700_000_000_000_000)
            let posted = try live.request("POST", "/messages", body: "real time")
            #expect(posted.status == 202)
            let postedAt = try #require(posted.json["postedAt"]?.number)

            var phases: [String] = []
            var last = JSONValue.null
            let hidden = try eventually {
                last = try live.overlay()
                let phase = last["phase"]?.string ?? "?"
                if phases.last != phase { phases.append(phase) }
                return phase == "hidden" && phases.count > 1
            }
            #expect(hidden, "phases seen: \(phases)")
            #expect(phases.last == "hidden", "phases seen: \(phases)")
            // Polling may miss a short phase, but never sees them out of order.
            let order = ["showing", "visible", "hiding", "hidden"]
            let positions = phases.compactMap { order.firstIndex(of: $0) }
            #expect(positions.count == phases.count && positions == positions.sorted(), "phases seen: \(phases)")
            #expect(last["message"]?.isNull == true)
            // post, show ends, display ends (hide starts), hide ends.
            #expect(last["version"]?.int == first + 4)
            let now = try #require(last["now"]?.number)
            #expect(now >= postedAt + 0.3)

            let message = try live.get("/messages/1").json
            #expect(message["state"]?.string == "done")
            let shownAt = try #require(message["displayStartedAt"]?.number)
            let endedAt = try #require(message["endedAt"]?.number)
            // Deadlines are instants on the overlay's clock: exactly 0.2 s of display.
            #expect(abs(endedAt - shownAt - 0.2) < 1e-9)
            #expect(abs(shownAt - postedAt - 0.05) < 1e-9)
        }
    }

    /// A deadline that moves later is not handed to the scheduler at once: the earlier one fires,
    /// reaches nothing, and hands over the next. Each of a run of immediate messages ends when its
    /// own time is up, not at an older message's end, and the scheduler does end it (nothing else
    /// reads the overlay meanwhile).
    @Test func deadlinesThatMoveLaterStillFire() throws {
        // The first message is displayed from 0.05 s to 10.05 s (long enough for this test to
        // post the second meanwhile on a loaded machine); the second ends 10 s after it is
        // posted, so always after the first's end.
        try withLiveServer(started: Self.server(animations: 0.05, info: 10)) { live in
            #expect(try live.request("POST", "/messages", body: "first").status == 202)
            #expect(try eventually { try live.overlay()["phase"]?.string == "visible" })
            let stream = try StreamClient.events(port: live.port)
            let current = try #require(stream.nextEvent()?.version)
            // Replaces the first during its display: its end is later than the first's.
            let second = try live.request(
                "POST", "/messages", body: #"{"text": "second", "immediate": true, "duration": 10}"#)
            #expect(second.status == 202)
            let id = try #require(second.json["id"]?.int)
            // Nothing reads the overlay now: only the scheduler moves it, and the stream shows each
            // change. The first message's stale deadline changes nothing, so after the post come the
            // second's end and its hide's end; without the handover nothing would come at all. A
            // loaded machine may wake the scheduler after the 0.05 s hide is over too, and then the
            // hiding step is never seen: the phases are an ordered part of visible, hiding, hidden.
            let events = stream.events { $0.json["phase"]?.string == "hidden" }
            let versions = events.compactMap(\.version)
            #expect(versions.first == current + 1)
            #expect(versions == versions.sorted() && Set(versions).count == versions.count)
            let phases = events.map { $0.json["phase"]?.string ?? "?" }
            #expect(phases == ["visible", "hiding", "hidden"] || phases == ["visible", "hidden"])
            #expect(events.first?.json["message"]?["text"]?.string == "second")
            let message = try live.get("/messages/\(id)").json
            #expect(message["state"]?.string == "done")
            let displayStartedAt = try #require(message["displayStartedAt"]?.number)
            let endedAt = try #require(message["endedAt"]?.number)
            #expect(abs(endedAt - displayStartedAt - 10) < 1e-9)
        }
    }

    /// An answer is shared with the reads that follow it for at most a millisecond: a read's
    /// `now` is never more than that before a clock reading taken just before the request, and a
    /// read made once the server's clock has moved a millisecond past the last answer is fresh.
    @Test func sharedAnswersAreAtMostAMillisecondOld() throws {
        try withLiveServer(clock: .real) { live in
            #expect(ServiceClock.sharedReadWindow == .seconds(0.001))
            var last: Double?
            for round in 0..<200 {
                if let last, round % 2 == 1 {
                    // The server's own clock, not this process's, decides when the window is over.
                    #expect(try eventually { try #require(live.get("/clock").json["now"]?.number) >= last + 0.001 })
                }
                let clock = try #require(live.get("/clock").json["now"]?.number)
                let overlay = try live.overlay()
                let now = try #require(overlay["now"]?.number)
                #expect(now > clock - 0.001, "round \(round): now \(now), the clock read before it \(clock)")
                if let last, round % 2 == 1 { #expect(now > last, "round \(round): an answer older than the window") }
                last = now
            }
        }
    }

    /// The rule itself: the real clock shares for less than the window and never backwards; the
    /// manual clock only at the same instant.
    @Test func sharingRule() {
        let start = Instant(nanoseconds: 5_000_000)
        let real = ServiceClock(mode: .real)
        #expect(real.sharesReading(start, with: start))
        #expect(real.sharesReading(start, with: Instant(nanoseconds: 5_999_999)))
        #expect(!real.sharesReading(start, with: Instant(nanoseconds: 6_000_000)))
        #expect(!real.sharesReading(start, with: Instant(nanoseconds: 4_999_999)))
        let manual = ServiceClock(mode: .manual)
        #expect(manual.sharesReading(start, with: start))
        #expect(!manual.sharesReading(start, with: Instant(nanoseconds: 5_000_001)))
        #expect(!manual.sharesReading(start, with: Instant(nanoseconds: 4_999_999)))
    }

    /// A queued message replaces the shown one on its own when its time ends.
    @Test func queueAdvancesOnItsOwn() throws {
        try withLiveServer(started: Self.server(animations: 0.02, info: 0.1)) { live in
            #expect(try live.request("POST", "/messages", body: "one").status == 202)
            #expect(try live.request("POST", "/messages", body: "two").status == 202)
            var state = ""
            #expect(
                try eventually {
                    state = try live.get("/messages/2").json["state"]?.string ?? "?"
                    return state == "done"
                })
            #expect(state == "done")
            #expect(try live.get("/messages/1").json["state"]?.string == "done")
            let first = try live.get("/messages/1").json["endedAt"]?.number
            let second = try live.get("/messages/2").json["displayStartedAt"]?.number
            #expect(first != nil && first == second)
        }
    }
}
