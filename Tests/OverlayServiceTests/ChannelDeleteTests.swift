import MicroHTTP
import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// `DELETE /channels/{name}`: a write on that channel that takes it away, in memory and on disk;
/// its readers' streams end; `default` stays.
@Suite("Deleting a channel")
struct ChannelDeleteTests {
    static func call(_ service: OverlayService, _ method: String, _ path: String, body: String = "") -> HTTPResponse {
        service.answer(HTTPRequest(method, path, body: body))
    }

    @Test func refusals() throws {
        let service = try OverlayService.testing()
        let kept = Self.call(service, "DELETE", "/channels/default")
        #expect(kept.status == 409 && kept.json["error"]?["code"]?.string == "default_channel")
        #expect(Self.call(service, "DELETE", "/channels/never-made").status == 404)
        #expect(Self.call(service, "DELETE", "/channels/..").status == 400)
        #expect(Self.call(service, "GET", "/channels/default").status == 200)
    }

    /// The channel goes, its place under `limits.maxChannels` with it; the name makes a new one.
    @Test func deletedChannelIsGoneAndItsPlaceFree() throws {
        let service = try OverlayService.testing { $0.maxChannels = 2 }
        #expect(Self.call(service, "POST", "/channels/ci/messages", body: "first").status == 202)
        #expect(Self.call(service, "POST", "/channels/ci/messages", body: "second").status == 202)
        #expect(Self.call(service, "POST", "/channels/other/messages", body: "x").status == 503)
        #expect(Self.call(service, "DELETE", "/channels/ci").status == 204)
        #expect(Self.call(service, "GET", "/channels/ci").status == 404)
        #expect(Self.call(service, "DELETE", "/channels/ci").status == 404)
        let names = Self.call(service, "GET", "/channels").json["channels"]?.array?
            .compactMap { $0["name"]?.string }
        #expect(names == ["default"])
        #expect(Self.call(service, "POST", "/channels/other/messages", body: "x").status == 202)
        #expect(Self.call(service, "DELETE", "/channels/other").status == 204)
        let again = Self.call(service, "POST", "/channels/ci/messages", body: "new")
        #expect(again.status == 202 && again.json["id"]?.int == 1)
        #expect(Self.call(service, "GET", "/channels/ci/messages").json["messages"]?.array?.count == 1)
    }

    /// A deletion is a write on the channel: a token that only reads it is refused.
    @Test func deletingNeedsWrite() throws {
        let service = try OverlayService.guarded()
        let reader = try service.makeToken(#"{"label": "r", "grants": [{"channels": "ci", "access": "read"}]}"#)
        #expect(
            service.call("POST", "/channels/ci/messages", as: Credential.admin, body: "x")
                .status == 202)
        #expect(service.call("DELETE", "/channels/ci", as: reader.secret).status == 403)
        #expect(service.call("DELETE", "/channels/ci").status == 401)
        #expect(service.call("DELETE", "/channels/ci", as: Credential.admin).status == 204)
    }

    /// The stored rows go too: a restart on the data directory does not bring the channel back.
    @Test func deletionIsDurable() throws {
        let directory = try TemporaryDirectory()
        func service() throws -> OverlayService {
            try OverlayService.testing {
                $0.store(in: directory)
            }
        }
        do {
            let first = try service()
            #expect(Self.call(first, "POST", "/channels/gone/messages", body: "x").status == 202)
            #expect(Self.call(first, "POST", "/channels/kept/messages", body: "y").status == 202)
            #expect(Self.call(first, "DELETE", "/channels/gone").status == 204)
            first.shutdown()
        }
        let second = try service()
        defer { second.shutdown() }
        #expect(Self.call(second, "GET", "/channels/gone").status == 404)
        #expect(Self.call(second, "GET", "/channels/kept").status == 200)
        #expect(Self.call(second, "GET", "/channels/kept/messages/1").status == 200)
    }

    /// Its readers do not hang on: a stream ends, a long-poll is answered 404.
    @Test func readersEnd() throws {
        try withLiveServer { live in
            #expect(try live.post("/channels/gone/messages", json: #"{"text": "x"}"#).status == 202)
            let stream = try StreamClient.events(port: live.port, path: "/channels/gone/events")
            #expect(stream.nextEvent()?.event == "overlay")
            let version = try #require(try live.version("/channels/gone/overlay"))
            let poll = try StreamClient(port: live.port, path: "/channels/gone/overlay?wait=60&since=\(version)")
            #expect(try live.waitForMetric("overlayd_long_poll_waiters", channel: "gone", toBe: 1))
            #expect(try live.request("DELETE", "/channels/gone").status == 204)
            #expect(stream.nextBlock() == nil && stream.ended)
            #expect(try poll.response().status == 404)
        }
    }
}

/// `channelIdleSeconds`: a channel that holds nothing and that nobody reads is deleted once it has
/// been so for that long, on a clock the test passes in; anything in it, or a reader, keeps it.
@Suite("Idle channels")
struct IdleChannelTests {
    static let second: Int64 = 1_000_000_000

    @Test func retiredOnceIdleLongEnough() throws {
        let service = try OverlayService.testing()
        let post = { (channel: String, body: String) in
            service.answer(HTTPRequest("POST", "/channels/\(channel)/messages", headers: [.json], body: body))
        }
        #expect(post("brief", #"{"text": "x", "duration": 1}"#).status == 202)
        #expect(post("busy", #"{"text": "stays", "kind": "sending"}"#).status == 202)
        #expect(post("later", #"{"text": "x", "duration": 1, "delay": "1h"}"#).status == 202)
        #expect(service.answer(HTTPRequest("POST", "/clock", body: "10")).status == 200)
        let registry = service.channels
        // Found idle at 0; not yet 60 s.
        #expect(registry.retireIdle(after: 60 * Self.second, now: 0) == 0)
        #expect(registry.retireIdle(after: 60 * Self.second, now: 59 * Self.second) == 0)
        #expect(registry.retireIdle(after: 60 * Self.second, now: 60 * Self.second) == 1)
        #expect(registry.existing("brief") == nil)
        // Shown and scheduled messages keep theirs; default is never retired.
        #expect(registry.existing("busy") != nil && registry.existing("later") != nil)
        #expect(registry.retireIdle(after: 0, now: 1_000 * Self.second) == 0)
        #expect(registry.existing("default") != nil)
    }

    /// A new version starts the idle time again; a write to a retired channel makes a new one.
    @Test func activityStartsItAgain() throws {
        let service = try OverlayService.testing()
        let registry = service.channels
        #expect(
            service.answer(HTTPRequest("PUT", "/channels/turned/orientation", body: "landscapeLeft")).status
                == 200)
        #expect(service.answer(HTTPRequest("POST", "/clock", body: "1")).status == 200)
        #expect(registry.retireIdle(after: 10 * Self.second, now: 0) == 0)
        #expect(
            service.answer(HTTPRequest("PUT", "/channels/turned/orientation", body: "portrait")).status == 200)
        #expect(service.answer(HTTPRequest("POST", "/clock", body: "1")).status == 200)
        #expect(registry.retireIdle(after: 10 * Self.second, now: 10 * Self.second) == 0)
        #expect(registry.retireIdle(after: 10 * Self.second, now: 20 * Self.second) == 1)
        let again = service.answer(HTTPRequest("PUT", "/channels/turned/orientation", body: "landscapeLeft"))
        #expect(again.status == 200 && registry.existing("turned") != nil)
    }

    /// A reader keeps a channel: a stream on it, live.
    @Test func aReaderKeepsIt() throws {
        try withLiveServer { live in
            #expect(try live.request("PUT", "/channels/watched/orientation", body: "landscapeLeft").status == 200)
            let stream = try StreamClient.events(port: live.port, path: "/channels/watched/events")
            #expect(stream.nextEvent()?.event == "overlay")
            let registry = live.server.service.channels
            #expect(registry.retireIdle(after: 0, now: 0) == 0)
            #expect(registry.existing("watched") != nil)
            stream.close()
            #expect(eventually { registry.retireIdle(after: 0, now: 0) == 1 })
        }
    }
}
