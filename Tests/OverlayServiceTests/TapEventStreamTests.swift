import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// A tap on the channel's event stream (docs/MODEL.md §14), over real HTTP on loopback: right
/// after the overlay event of the version it made, `event: tap` with the message, the action and
/// the time, and no `id:` line; a reader that reconnects never gets it again.
@Suite("Taps on the event stream (§14)")
struct TapEventStreamTests {
    @Test func theTapFollowsItsVersion() throws {
        try withLiveServer { live in
            let stream = try StreamClient.events(port: live.port, path: "/channels/ci/events")
            #expect(stream.nextEvent()?.version == 0)
            #expect(try live.post("/channels/ci/messages", json: SampleMessage.withActions).status == 202)
            #expect(stream.nextEvent()?.version == 1)
            try live.advance(1)
            #expect(stream.nextEvent()?.version == 2)

            let tapped = try live.request("POST", "/channels/ci/overlay/tap", body: "retry")
            #expect(tapped.status == 200)
            let overlay = try #require(stream.nextEvent())
            #expect(overlay.event == "overlay" && overlay.version == 3)
            #expect(overlay.json["message"]?["taps"]?[0]?["action"]?.string == "retry")
            let tap = try #require(stream.nextEvent())
            #expect(tap.raw == #"event: tap"# + "\n" + #"data: {"message":1,"action":"retry","at":1}"#)
            #expect(tap.id == nil)

            // A tap on the overlay itself: null.
            try live.advance(0.5)
            #expect(try live.request("POST", "/channels/ci/overlay/tap").status == 200)
            #expect(stream.nextEvent()?.version == 4)
            #expect(stream.nextEvent()?.data == #"{"message":1,"action":null,"at":1.5}"#)
            // A refused tap is no event: the next one is the next change's.
            #expect(try live.request("POST", "/channels/ci/overlay/tap", body: "nope").status == 422)
            #expect(try live.post("/channels/ci/messages", json: #"{"text": "next"}"#).status == 202)
            #expect(stream.nextEvent()?.version == 5)
            stream.close()

            // Reconnecting with the tap's version as Last-Event-ID (what EventSource sends: the tap
            // has no id of its own): nothing until the next change, which is an overlay.
            let resumed = try StreamClient.events(
                port: live.port, path: "/channels/ci/events", headers: [("Last-Event-ID", "4")])
            let current = try #require(resumed.nextEvent())
            #expect(current.event == "overlay" && current.version == 5)
            let upToDate = try StreamClient.events(
                port: live.port, path: "/channels/ci/events", headers: [("Last-Event-ID", "5")])
            #expect(try live.request("DELETE", "/channels/ci/messages/2").status == 200)
            for reader in [resumed, upToDate] {
                let next = try #require(reader.nextEvent())
                #expect(next.event == "overlay" && next.version == 6)
            }
            // One more tap reaches both, once each.
            #expect(try live.request("POST", "/channels/ci/overlay/tap", body: "mute").status == 200)
            for reader in [resumed, upToDate] {
                #expect(reader.nextEvent()?.version == 7)
                #expect(reader.nextEvent()?.data == #"{"message":1,"action":"mute","at":1.5}"#)
            }
            // The message's end and the hide's end, reached by one move of the clock: one event.
            #expect(try live.advance(10).status == 200)
            for reader in [resumed, upToDate] {
                let next = try #require(reader.nextEvent())
                #expect(next.event == "overlay" && next.version == 9)
                #expect(next.json["phase"]?.string == "hidden")
                #expect(reader.framingError == nil)
            }
        }
    }
}
