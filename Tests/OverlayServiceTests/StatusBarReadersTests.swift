import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// Readers see status-bar changes like any other change (docs/STATUSBAR.md "Versions"): the ETag
/// moves, a conditional GET of the old version answers 200, a long-poll wakes, an event stream
/// gets an event, for the PUT and for the end of the bar's hide.
@Suite("Status bar: versions and readers")
struct StatusBarReadersTests {
    /// A PUT that changes the bar is a new ETag; the end of its animation is another; moving the
    /// clock within the animation keeps the version (304) while the bar's alpha moves.
    @Test func etagAndNotModified() throws {
        try withLiveServer { live in
            let first = try live.get("/overlay")
            #expect(first.header("ETag") == #"W/"0""#)
            #expect(try live.request("PUT", "/statusbar?style=darkContent").status == 200)
            let styled = try live.request("GET", "/overlay", headers: [("If-None-Match", #"W/"0""#)])
            #expect(styled.status == 200)
            #expect(styled.header("ETag") == #"W/"1""#)
            #expect(styled.json["statusBar"]?["style"]?.string == "darkContent")

            #expect(try live.request("PUT", "/statusbar?hidden=true").status == 200)
            #expect(try live.request("GET", "/overlay", headers: [("If-None-Match", #"W/"1""#)]).status == 200)
            try live.advance(0.1)
            let during = try live.request("GET", "/overlay", headers: [("If-None-Match", #"W/"2""#)])
            #expect(during.status == 304)
            let moving = try live.get("/overlay")
            #expect(moving.header("ETag") == #"W/"2""#)
            #expect(moving.json["statusBar"]?["alpha"]?.number == 0.6)
            try live.advance(0.15)
            let ended = try live.request("GET", "/overlay", headers: [("If-None-Match", #"W/"2""#)])
            #expect(ended.status == 200)
            #expect(ended.header("ETag") == #"W/"3""#)
            #expect(ended.json["statusBar"]?["alpha"]?.number == 0)
            #expect(ended.json["statusBar"]?["animation"] == .null)
        }
    }

    /// A long-poll parked on the current version wakes when the bar is hidden.
    @Test func longPollWakes() throws {
        try withLiveServer { live in
            let waiter = try StreamClient(port: live.port, path: "/overlay?wait=60&since=0")
            #expect(try live.waitForMetric("overlayd_long_poll_waiters", toBe: 1))
            #expect(
                try live.request("PUT", "/statusbar", body: #"{"hidden": true, "animation": "slide"}"#).status == 200)
            let answer = try waiter.response()
            #expect(answer.status == 200)
            #expect(answer.json["version"]?.int == 1)
            #expect(answer.json["held"]?.bool == true)
            // The end of the bar's slide wakes the next one.
            let next = try StreamClient(port: live.port, path: "/overlay?wait=60&since=1")
            #expect(try live.waitForMetric("overlayd_long_poll_waiters", toBe: 1))
            try live.advance(0.25)
            let ended = try next.response()
            #expect(ended.json["version"]?.int == 2)
            #expect(ended.json["statusBar"]?["offset"]?.number == -20)
        }
    }

    /// An event stream gets an event for the PUT of a hierarchy that hides the bar, for the ends
    /// of the overlay's hide beside it and of the bar's (two versions), and for the hierarchy that
    /// shows the bar again and releases the overlay.
    @Test func eventStream() throws {
        try withLiveServer(configure: { $0.engine.statusBar.appearance = .controllers }) { live in
            #expect(try live.post("/messages", json: #"{"text": "Hello", "kind": "sending"}"#).status == 202)
            try live.advance(1)
            let stream = try StreamClient.events(port: live.port)
            #expect(stream.nextBlock()?.raw == "retry: 1000")
            let initial = try #require(stream.nextEvent())
            #expect(initial.json["phase"]?.string == "visible")
            let hide = #"{"root": "splash", "controllers": [{"name": "splash", "prefersStatusBarHidden": true}]}"#
            #expect(try live.request("PUT", "/statusbar/controllers", body: hide).status == 200)
            let held = try #require(stream.nextEvent())
            #expect(held.version == 3)
            #expect(held.json["held"]?.bool == true)
            #expect(held.json["phase"]?.string == "hiding")
            #expect(held.json["statusBar"]?["hiddenFrom"]?.string == "splash")
            try live.advance(0.25)
            // Both ends are reached by one move of the clock: the stream gets the latest version.
            let ends = stream.events(through: 5)
            #expect(ends.last?.version == 5)
            #expect(ends.last?.json["phase"]?.string == "hidden")
            let show = #"{"root": "home", "controllers": [{"name": "home"}]}"#
            #expect(try live.request("PUT", "/statusbar/controllers", body: show).status == 200)
            let shown = try #require(stream.nextEvent())
            #expect(shown.version == 6)
            #expect(shown.json["held"]?.bool == false)
            #expect(shown.json["phase"]?.string == "showing")
            #expect(shown.json["message"]?["id"]?.int == 1)
        }
    }
}
