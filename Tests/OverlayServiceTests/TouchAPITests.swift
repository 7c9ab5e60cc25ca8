import OverlayEngine
import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// `POST /overlay/hold`, `/overlay/release` and `/overlay/dismiss` (§10 "Touch"), also under
/// `/channels/{name}/`, through real HTTP with the manual clock on the default iPad: an `info`
/// message posted at 0 is shown at 0.25 and its 2.5 s end at 2.75.
@Suite("Touch through the API (§10)")
struct TouchAPITests {
    static let prefixes = ["", "/channels/tv"]

    /// Held at 1, the message is still shown at 10; the hold answers the overlay with its
    /// `touch`, one version; a second hold is 200 with the version unchanged. The release at 10
    /// is one version and ends the message then; a release without a hold changes nothing.
    @Test(arguments: TouchAPITests.prefixes)
    func holdAndRelease(_ prefix: String) throws {
        try withLiveServer { live in
            #expect(try live.request("POST", "\(prefix)/messages", body: "Photo sent").status == 202)
            try live.advance(1)
            let version = try #require(try live.version("\(prefix)/overlay"))
            let held = try live.request("POST", "\(prefix)/overlay/hold")
            #expect(held.status == 200)
            #expect(orderedKeys(held.body) == orderedKeys(try live.get("\(prefix)/overlay").body))
            #expect(held.json["touch"]?["heldSince"]?.number == 1)
            #expect(held.json["version"]?.int == version + 1)
            #expect(held.header("ETag") == "W/\"\(version + 1)\"")
            let again = try live.request("POST", "\(prefix)/overlay/hold")
            #expect(again.status == 200)
            #expect(again.json["version"]?.int == version + 1)
            #expect(again.json["touch"]?["heldSince"]?.number == 1)

            try live.advance(9)
            let late = try live.get("\(prefix)/overlay").json
            #expect(late["phase"]?.string == "visible")
            #expect(late["message"]?["state"]?.string == "showing")
            #expect(late["version"]?.int == version + 1)

            let released = try live.request("POST", "\(prefix)/overlay/release")
            #expect(released.status == 200)
            #expect(released.json["touch"]?.isNull == true)
            #expect(released.json["version"]?.int == version + 2)
            #expect(released.json["phase"]?.string == "hiding")
            #expect(released.json["message"]?["state"]?.string == "done")
            #expect(try live.get("\(prefix)/messages/1").json["endedAt"]?.number == 10)
            let none = try live.request("POST", "\(prefix)/overlay/release")
            #expect(none.status == 200)
            #expect(none.json["version"]?.int == version + 2)
        }
    }

    /// With nothing shown a hold or a dismiss is 409 `nothing_shown` and a release is 200; none
    /// changes anything, and on a channel that does not exist none creates it.
    @Test func nothingShown() throws {
        try withLiveServer { live in
            for prefix in ["", "/channels/ghost"] {
                expectError(try live.request("POST", "\(prefix)/overlay/hold"), status: 409, code: "nothing_shown")
                expectError(try live.request("POST", "\(prefix)/overlay/dismiss"), status: 409, code: "nothing_shown")
                let release = try live.request("POST", "\(prefix)/overlay/release")
                #expect(release.status == 200)
                #expect(release.json["version"]?.int == 0)
                #expect(release.json["touch"]?.isNull == true)
            }
            #expect(try live.get("/channels").json["channels"]?.array?.compactMap { $0["name"]?.string } == ["default"])
            #expect(try live.version() == 0)

            // Nor while the ended message hides.
            #expect(try live.request("POST", "/messages", body: "a").status == 202)
            try live.advance(2.8)
            let before = try live.observableState()
            expectError(try live.request("POST", "/overlay/hold"), status: 409, code: "nothing_shown")
            expectError(try live.request("POST", "/overlay/dismiss"), status: 409, code: "nothing_shown")
            try live.expectUnchanged(since: before)
        }
    }

    /// A hold ends by itself `maxHoldSeconds` after it began, as a release.
    @Test func theLongestHold() throws {
        try withLiveServer(configure: { $0.engine.maxHoldDuration = .seconds(5) }) { live in
            #expect(try live.request("POST", "/messages", body: "a").status == 202)
            try live.advance(1)
            #expect(try live.request("POST", "/overlay/hold").status == 200)
            try live.advance(4.999_999_999)
            #expect(try live.overlay()["touch"]?["heldSince"]?.number == 1)
            #expect(try live.overlay()["phase"]?.string == "visible")
            try live.advance(0.000_000_001)
            let ended = try live.overlay()
            #expect(ended["touch"]?.isNull == true)
            #expect(ended["message"]?["state"]?.string == "done")
            #expect(ended["animation"]?["start"]?.number == 6)
        }
    }

    /// DELETE, PATCH and an immediate POST act as usual during a hold, which stays on the overlay.
    @Test func writesDuringAHold() throws {
        try withLiveServer { live in
            #expect(try live.request("POST", "/messages", body: "a").status == 202)
            #expect(try live.request("POST", "/messages", body: "b").status == 202)
            try live.advance(1)
            #expect(try live.request("POST", "/overlay/hold").status == 200)
            let patched = try live.request("PATCH", "/messages/1", body: "text=changed")
            #expect(patched.status == 200)
            #expect(try live.overlay()["label"]?["text"]?.string == "changed")
            #expect(try live.request("DELETE", "/messages/1").json["state"]?.string == "cancelled")
            let replaced = try live.overlay()
            #expect(replaced["message"]?["id"]?.int == 2)
            #expect(replaced["touch"]?["heldSince"]?.number == 1)
            let now = try live.post("/messages", json: #"{"text": "now", "immediate": true}"#)
            #expect(now.status == 202)
            #expect(try live.get("/messages/2").json["state"]?.string == "preempted")
            try live.advance(20)
            #expect(try live.overlay()["message"]?["id"]?.int == 3)
            #expect(try live.overlay()["message"]?["state"]?.string == "showing")
        }
    }

    /// Swiped up: the answer is the message, ended now as `dismissed`; with nothing queued the
    /// overlay hides, with a message queued that one replaces it at once.
    @Test(arguments: TouchAPITests.prefixes)
    func dismiss(_ prefix: String) throws {
        try withLiveServer { live in
            #expect(try live.request("POST", "\(prefix)/messages", body: "a").status == 202)
            #expect(try live.request("POST", "\(prefix)/messages", body: "b").status == 202)
            try live.advance(1)
            let version = try #require(try live.version("\(prefix)/overlay"))
            let first = try live.request("POST", "\(prefix)/overlay/dismiss")
            #expect(first.status == 200)
            #expect(orderedKeys(first.body) == orderedKeys(try live.get("\(prefix)/messages/1").body))
            #expect(first.json["id"]?.int == 1)
            #expect(first.json["state"]?.string == "dismissed")
            #expect(first.json["endedAt"]?.number == 1)
            #expect(try live.get("\(prefix)/messages/1").json["state"]?.string == "dismissed")
            let replaced = try live.get("\(prefix)/overlay").json
            #expect(replaced["version"]?.int == version + 1)
            #expect(replaced["phase"]?.string == "visible")
            #expect(replaced["message"]?["id"]?.int == 2)
            #expect(replaced["animation"]?.isNull == true)

            let second = try live.request("POST", "\(prefix)/overlay/dismiss")
            #expect(second.json["id"]?.int == 2)
            #expect(second.json["state"]?.string == "dismissed")
            let hiding = try live.get("\(prefix)/overlay").json
            #expect(hiding["phase"]?.string == "hiding")
            #expect(hiding["animation"]?["to"]?.number == -20)
            #expect(hiding["animation"]?["start"]?.number == 1)
        }
    }

    /// Swiped up during a rotation: the message ends at once; the overlay hides when the
    /// rotation's fade-in ends (0.4 + 0.4 s after it began).
    @Test func dismissDuringARotation() throws {
        try withLiveServer { live in
            #expect(try live.request("POST", "/messages", body: "a").status == 202)
            try live.advance(1)
            #expect(try live.request("PUT", "/orientation", body: "landscapeLeft").status == 200)
            try live.advance(0.2)
            #expect(try live.request("POST", "/overlay/dismiss").json["state"]?.string == "dismissed")
            #expect(try live.overlay()["phase"]?.string == "rotatingOut")
            try live.advance(0.6)
            let done = try live.overlay()
            #expect(done["phase"]?.string == "hiding")
            #expect(done["orientation"]?.string == "landscapeLeft")
            #expect(done["animation"]?["start"]?.number == 1.8)
        }
    }

    /// With a write token, hold, release, dismiss and PUT /presentation need it, on both paths.
    @Test func writesNeedTheToken() throws {
        try withLiveServer(started: LiveServer.tokenGuarded()) { live in
            let token = Credential.authorization(Credential.write)
            for prefix in Self.prefixes {
                for path in ["/overlay/hold", "/overlay/release", "/overlay/dismiss"] {
                    expectUnauthorized(try live.request("POST", prefix + path), wrongToken: false)
                    expectUnauthorized(
                        try live.request("POST", prefix + path, headers: [("Authorization", "Bearer nope")]),
                        wrongToken: true)
                }
                expectUnauthorized(
                    try live.request("PUT", prefix + "/presentation", body: "pill"), wrongToken: false)
                #expect(try live.request("POST", prefix + "/messages", headers: token, body: "a").status == 202)
                #expect(try live.request("POST", prefix + "/overlay/hold", headers: token).status == 200)
                #expect(try live.request("POST", prefix + "/overlay/release", headers: token).status == 200)
                #expect(try live.request("PUT", prefix + "/presentation", headers: token, body: "pill").status == 200)
                #expect(try live.request("POST", prefix + "/overlay/dismiss", headers: token).status == 200)
            }
        }
    }

    /// A restart releases a hold: the message shows again from the start of its slide, not held,
    /// and ends by its time.
    @Test func aRestartReleasesTheHold() throws {
        try withRestart { live in
            #expect(try live.request("POST", "/messages", body: "a").status == 202)
            try live.advance(1)
            #expect(try live.request("POST", "/overlay/hold").json["touch"]?["heldSince"]?.number == 1)
            try live.advance(5)
            #expect(try live.overlay()["touch"]?["heldSince"]?.number == 1)
        } then: { live in
            let restarted = try live.overlay()
            #expect(restarted["touch"]?.isNull == true)
            #expect(restarted["phase"]?.string == "showing")
            #expect(restarted["message"]?["state"]?.string == "showing")
            try live.advance(2.75)
            #expect(try live.overlay()["message"]?["state"]?.string == "done")
        }
    }
}
