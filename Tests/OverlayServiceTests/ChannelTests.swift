import Platform
import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

#if canImport(Glibc)
    import Glibc
#endif

/// Named channels (`/channels/{name}/…`): each its own queue, version, orientation and device;
/// `default` is the unprefixed paths.
@Suite("Channels")
struct ChannelTests {
    /// A write to one channel changes only that channel: its own ids, version and Location; the
    /// others (and `default`) keep version 0, and reading a channel that does not exist shows a
    /// fresh overlay without creating it.
    @Test func isolation() throws {
        try withLiveServer { live in
            let posted = try live.post("/channels/a/messages", json: #"{"text": "for a", "kind": "sending"}"#)
            #expect(posted.status == 202)
            #expect(posted.header("Location") == "/channels/a/messages/1")
            #expect(posted.json["id"]?.int == 1)
            #expect(try live.version("/channels/a/overlay") == 1)
            #expect(try live.version("/channels/b/overlay") == 0)
            #expect(try live.version() == 0)
            #expect(try live.get("/messages").json["messages"]?.array?.count == 0)
            #expect(try live.get("/channels/a/messages/1").json["text"]?.string == "for a")
            expectError(try live.get("/messages/1"), status: 404, code: "not_found")
            expectError(try live.get("/channels/b/messages/1"), status: 404, code: "not_found")
            expectError(try live.request("DELETE", "/channels/b/messages/1"), status: 404, code: "not_found")

            // b's first message also gets id 1; a is untouched by it.
            let other = try live.post("/channels/b/messages", json: #"{"text": "for b"}"#)
            #expect(other.header("Location") == "/channels/b/messages/1")
            #expect(try live.version("/channels/a/overlay") == 1)
            #expect(try live.get("/channels/a/overlay").json["message"]?["text"]?.string == "for a")
            #expect(try live.get("/channels/b/overlay").json["message"]?["text"]?.string == "for b")

            // Orientation is per channel.
            #expect(try live.request("PUT", "/channels/a/orientation", body: "landscapeLeft").status == 200)
            #expect(try live.get("/channels/a/overlay").json["phase"]?.string == "rotatingOut")
            #expect(try live.get("/channels/b/overlay").json["phase"]?.string == "showing")
            #expect(try live.get("/overlay").json["phase"]?.string == "hidden")

            let listed = try live.get("/channels").json["channels"]?.array ?? []
            #expect(listed.compactMap { $0["name"]?.string } == ["a", "b", "default"])
            #expect(try live.get("/channels/never/overlay").json["version"]?.int == 0)
            #expect(try live.get("/channels/never/messages").json["messages"]?.array?.count == 0)
            #expect(try live.get("/channels").json["channels"]?.array?.count == 3)
            expectError(try live.get("/channels/never"), status: 404, code: "not_found")
        }
    }

    /// A subscription brings a channel into being (a display may start before its senders): an
    /// event stream or a long-poll on a new name lists it in `GET /channels`, at version 0.
    @Test func subscriptionCreatesChannel() throws {
        try withLiveServer { live in
            let stream = try StreamClient.events(port: live.port, path: "/channels/display/events")
            #expect(stream.nextEvent()?.version == 0)
            let waiter = try StreamClient(port: live.port, path: "/channels/poller/overlay?wait=60&since=0")
            #expect(try live.waitForMetric("overlayd_long_poll_waiters", channel: "poller", toBe: 1))
            #expect(
                try live.get("/channels").json["channels"]?.array?.compactMap { $0["name"]?.string } == [
                    "default", "display", "poller",
                ])
            #expect(try live.get("/channels/display").json["version"]?.int == 0)
            #expect(try live.post("/channels/poller/messages", json: #"{"text": "hi"}"#).status == 202)
            #expect(try waiter.response().json["version"]?.int == 1)
            // The stream's next event is its own channel's first change, not the poller's.
            #expect(try live.post("/channels/display/messages", json: #"{"text": "shown"}"#).status == 202)
            let next = stream.nextEvent()
            #expect(next?.version == 1)
            #expect(next?.json["message"]?["text"]?.string == "shown")
        }
    }

    /// `GET /channels` counts a channel's readers as they come and go: event streams as
    /// `subscribers`, long-polls waiting for its next version as `waiters`.
    @Test func readersAreCounted() throws {
        try withLiveServer { live in
            #expect(try live.post("/channels/blue/messages", json: #"{"text": "hi"}"#).status == 202)
            func counts() throws -> [Int?] {
                let channel = try live.get("/channels/blue").json
                return [channel["subscribers"]?.int, channel["waiters"]?.int]
            }
            #expect(try counts() == [0, 0])
            let streams = try (0..<2).map { _ in try StreamClient.events(port: live.port, path: "/channels/blue/events")
            }
            for stream in streams { #expect(stream.nextEvent() != nil) }
            let version = try #require(try live.version("/channels/blue/overlay"))
            let waiter = try StreamClient(port: live.port, path: "/channels/blue/overlay?wait=60&since=\(version)")
            #expect(try live.waitForMetric("overlayd_long_poll_waiters", channel: "blue", toBe: 1))
            #expect(try counts() == [2, 1])
            let listed = try live.get("/channels").json["channels"]?.array?.first { $0["name"]?.string == "blue" }
            #expect(listed?["subscribers"]?.int == 2 && listed?["waiters"]?.int == 1)
            #expect(try live.post("/channels/blue/messages", json: #"{"text": "again"}"#).status == 202)
            #expect(try waiter.response().status == 200)
            for stream in streams { stream.close() }
            #expect(try live.waitForMetric("overlayd_event_streams", channel: "blue", toBe: 0))
            #expect(try counts() == [0, 0])
        }
    }

    /// A long-poll on a channel that does not exist, naming a version other than a new channel's
    /// 0, has nothing to wait for: it is a read, answered at once with the fresh overlay, and
    /// creates nothing (also when the channel limit is reached).
    @Test func longPollThatNeedNotWaitCreatesNothing() throws {
        try withLiveServer(configure: { $0.maxChannels = 1 }) { live in
            // Answered before the wait ends: the client gives up long before 60 s.
            let response = try live.get("/channels/ghost/overlay?wait=60&since=7")
            #expect(response.status == 200)
            #expect(response.json["version"]?.int == 0)
            #expect(response.header("ETag") == #"W/"0""#)
            let tagged = try live.request(
                "GET", "/channels/ghost/overlay?wait=60", headers: [("If-None-Match", #"W/"3""#)])
            #expect(tagged.status == 200)
            #expect(tagged.json["version"]?.int == 0)
            expectError(try live.get("/channels/ghost"), status: 404, code: "not_found")
            #expect(try live.get("/channels").json["channels"]?.array?.count == 1)
        }
    }

    /// `GET /channels/{name}` summarises one channel.
    @Test func summary() throws {
        try withLiveServer { live in
            #expect(try live.post("/channels/x/messages", json: #"{"text": "one", "kind": "sending"}"#).status == 202)
            #expect(try live.post("/channels/x/messages", json: #"{"text": "two"}"#).status == 202)
            let summary = try live.get("/channels/x")
            #expect(summary.status == 200)
            #expect(summary.json["name"]?.string == "x")
            #expect(summary.json["version"]?.int == 2)
            #expect(summary.json["phase"]?.string == "showing")
            #expect(summary.json["queued"]?.int == 1)
            #expect(summary.json["device"]?.string == "ipad")
            #expect(summary.json["orientation"]?.string == "portrait")
            #expect(try live.get("/channels/default").json["version"]?.int == 0)
        }
    }

    /// `/channels/default/…` is the unprefixed API: one queue, one version, identical overlays, and
    /// `/events?channel=` names the same streams.
    @Test func defaultIsUnprefixed() throws {
        try withLiveServer { live in
            let posted = try live.post("/channels/default/messages", json: #"{"text": "both"}"#)
            #expect(posted.status == 202)
            #expect(posted.header("Location") == "/channels/default/messages/1")
            #expect(try live.get("/messages/1").json["text"]?.string == "both")
            #expect(try live.post("/messages", json: #"{"text": "second"}"#).json["id"]?.int == 2)
            #expect(try live.get("/channels/default/overlay").body == live.get("/overlay").body)
            #expect(try live.get("/channels/default/messages").body == live.get("/messages").body)

            let viaQuery = try StreamClient.events(port: live.port, path: "/events?channel=default")
            let viaPath = try StreamClient.events(port: live.port, path: "/channels/default/events")
            #expect(viaQuery.nextEvent()?.version == 2)
            #expect(viaPath.nextEvent()?.version == 2)
            #expect(try live.request("DELETE", "/messages/2").status == 200)
            #expect(viaQuery.nextEvent()?.version == 3)
            #expect(viaPath.nextEvent()?.version == 3)
        }
    }

    /// Names are 1 to 64 of `A-Z a-z 0-9 . _ -`; anything else is 400, in the path and in `?channel=`.
    @Test func names() throws {
        try withLiveServer { live in
            let longest = String(repeating: "x", count: 64)
            #expect(try live.post("/channels/\(longest)/messages", json: #"{"text": "ok"}"#).status == 202)
            #expect(try live.post("/channels/A-z_0.9/messages", json: #"{"text": "ok"}"#).status == 202)
            for name in [longest + "x", "a!b", "a%20b", "%C3%A4", "a%00b", "semi;colon"] {
                expectError(
                    try live.post("/channels/\(name)/messages", json: #"{"text": "no"}"#), status: 400,
                    code: "bad_request", field: "channel")
                expectError(
                    try live.get("/channels/\(name)/overlay"), status: 400, code: "bad_request", field: "channel")
                expectError(try live.get("/channels/\(name)"), status: 400, code: "bad_request", field: "channel")
                expectError(try live.get("/events?channel=\(name)"), status: 400, code: "bad_request", field: "channel")
            }
            expectError(try live.get("/events?channel="), status: 400, code: "bad_request", field: "channel")
            #expect(try live.get("/channels").json["channels"]?.array?.count == 3)
        }
    }

    /// Writers may create `maxChannels` channels (`default` included); beyond that a write to a
    /// new name is 503 `too_many_channels`. Channels only readers asked for (an event stream or
    /// long-poll on a new name) do not count against that: they have a pool of their own, of the
    /// same size, whose overflow is refused to readers only. Reads of a name that does not exist
    /// still show a fresh overlay, and existing channels go on working.
    @Test func channelLimit() throws {
        try withLiveServer(configure: { $0.maxChannels = 3 }) { live in
            #expect(try live.post("/channels/a/messages", json: #"{"text": "a"}"#).status == 202)
            let readerOfB = try StreamClient.events(port: live.port, path: "/channels/b/events")
            #expect(readerOfB.nextEvent()?.version == 0)
            #expect(try live.get("/channels").json["channels"]?.array?.count == 3)
            // default and a are written, b only read: one more write to a new name fits.
            #expect(try live.post("/channels/c/messages", json: #"{"text": "c"}"#).status == 202)
            expectError(
                try live.post("/channels/d/messages", json: #"{"text": "d"}"#), status: 503, code: "too_many_channels",
                field: "channel")
            expectError(
                try live.request("PUT", "/channels/d/device", body: "iphone"), status: 503, code: "too_many_channels",
                field: "channel")
            expectError(
                try live.request("PUT", "/channels/d/orientation", body: "landscapeLeft"), status: 503,
                code: "too_many_channels", field: "channel")
            // A write to b would make it a written channel: the writers' limit is full.
            expectError(
                try live.post("/channels/b/messages", json: #"{"text": "b"}"#), status: 503, code: "too_many_channels",
                field: "channel")
            // Readers have three more names (b is one of them), then they are refused.
            let readers = try ["e", "f"].map {
                try StreamClient.events(port: live.port, path: "/channels/\($0)/events")
            }
            for reader in readers { #expect(reader.nextEvent()?.version == 0) }
            expectError(try live.get("/channels/g/events"), status: 503, code: "too_many_channels", field: "channel")
            expectError(try live.get("/events?channel=g"), status: 503, code: "too_many_channels", field: "channel")
            expectError(
                try live.get("/channels/g/overlay?wait=5&since=0"), status: 503, code: "too_many_channels",
                field: "channel")
            #expect(try live.get("/channels/g/overlay").json["version"]?.int == 0)
            expectError(try live.get("/channels/g"), status: 404, code: "not_found")
            #expect(
                try live.get("/channels").json["channels"]?.array?.compactMap { $0["name"]?.string } == [
                    "a", "b", "c", "default", "e", "f",
                ])
            #expect(try live.post("/channels/a/messages", json: #"{"text": "again"}"#).status == 202)
            #expect(try live.post("/messages", json: #"{"text": "default"}"#).status == 202)
        }
    }

    /// No sequence of requests without the write token can make an authorised write fail:
    /// readers without a token waiting on as many new names as they can get leave the writers'
    /// limit untouched, and once they leave, the channels they made are let go (by the sweep,
    /// within about a second), so their names hold nothing.
    @Test func readersCannotLockWritersOut() throws {
        try withLiveServer(
            started: LiveServer {
                $0.maxChannels = 4
                $0.token = "secret"
            }
        ) { live in
            let auth = [("Authorization", "Bearer secret")]
            var readers: [StreamClient] = []
            for index in 0..<4 {
                readers.append(try StreamClient.events(port: live.port, path: "/channels/r\(index)/events"))
            }
            readers.append(try StreamClient(port: live.port, path: "/channels/waiting/overlay?wait=60&since=0"))
            expectError(try live.get("/channels/r9/events"), status: 503, code: "too_many_channels", field: "channel")
            for index in 1..<4 {
                let written = try live.request(
                    "POST", "/channels/w\(index)/messages", headers: auth + [("Content-Type", "application/json")],
                    body: #"{"text": "from the writer"}"#)
                #expect(written.status == 202, "write \(index): \(written.text)")
            }
            #expect(try live.get("/channels").json["channels"]?.array?.count == 8)
            for reader in readers { reader.close() }
            var names: [String] = []
            let released = try eventually {
                names = try live.get("/channels").json["channels"]?.array?.compactMap { $0["name"]?.string } ?? []
                return names.count <= 4
            }
            #expect(released)
            #expect(names == ["default", "w1", "w2", "w3"])
            // The names are free again, for readers and (within the writers' limit) for writers.
            let again = try StreamClient.events(port: live.port, path: "/channels/r0/events")
            #expect(again.nextEvent()?.version == 0)
        }
    }

    /// Many clients creating channels at once never pass the limit: exactly `maxChannels` exist
    /// afterwards, and every refused creation was a 503.
    @Test func channelLimitUnderConcurrency() throws {
        try withLiveServer(configure: { $0.maxChannels = 10 }) { live throws in
            let port = live.port
            let statuses = Lock<[Int]>([])
            onThreads(8) { thread in
                for index in 0..<5 {
                    let status =
                        (try? RawClient.request("POST", "/channels/c\(thread)-\(index)/messages", port: port, body: "x"))?
                        .status ?? 0
                    statuses.withLock { $0.append(status) }
                }
            }
            let all = statuses.withLock { $0 }
            #expect(all.filter { $0 == 202 }.count == 9)
            #expect(all.filter { $0 == 503 }.count == 31)
            #expect(try live.get("/channels").json["channels"]?.array?.count == 10)
        }
    }

    /// Long-polls and event streams see only their own channel's changes.
    @Test func longPollAndEventsPerChannel() throws {
        try withLiveServer { live in
            let port = live.port
            let waiterA = try StreamClient(port: port, path: "/channels/a/overlay?wait=60&since=0")
            let waiterDefault = try StreamClient(port: port, path: "/overlay?wait=60&since=0")
            let streamA = try StreamClient.events(port: port, path: "/events?channel=a")
            let streamB = try StreamClient.events(port: port, path: "/channels/b/events")
            let streamDefault = try StreamClient.events(port: port)
            for stream in [streamA, streamB, streamDefault] { #expect(stream.nextEvent()?.version == 0) }
            #expect(try live.waitForMetric("overlayd_long_poll_waiters", channel: "a", toBe: 1))
            #expect(try live.waitForMetric("overlayd_long_poll_waiters", toBe: 1))
            #expect(try live.metric("overlayd_event_streams", channel: "b") == 1)

            // Each reader's next answer is its own channel's change: one that came from another
            // channel's would be read first.
            #expect(
                try live.post("/channels/b/messages", json: #"{"text": "b only", "kind": "sending"}"#).status == 202)
            let eventB = streamB.nextEvent()
            #expect(eventB?.version == 1)
            #expect(eventB?.json["message"]?["text"]?.string == "b only")
            #expect(!waiterA.hasData())
            #expect(!waiterDefault.hasData())

            #expect(
                try live.post("/channels/a/messages", json: #"{"text": "a only", "kind": "sending"}"#).status == 202)
            let answerA = try waiterA.response()
            #expect(answerA.status == 200)
            #expect(answerA.json["message"]?["text"]?.string == "a only")
            let eventA = streamA.nextEvent()
            #expect(eventA?.version == 1)
            #expect(eventA?.json["message"]?["text"]?.string == "a only")

            // The manual clock is shared: advancing it reaches each channel's own deadlines.
            #expect(try live.advance(0.25).status == 200)
            #expect(streamA.nextEvent()?.json["phase"]?.string == "visible")
            let visibleB = streamB.nextEvent()
            #expect(visibleB?.version == 2)
            #expect(visibleB?.json["phase"]?.string == "visible")
            #expect(try live.version() == 0)

            #expect(try live.post("/messages", json: #"{"text": "default only"}"#).status == 202)
            let eventDefault = streamDefault.nextEvent()
            #expect(eventDefault?.version == 1)
            #expect(eventDefault?.json["message"]?["text"]?.string == "default only")
            let answerDefault = try waiterDefault.response()
            #expect(answerDefault.json["version"]?.int == 1)
            #expect(answerDefault.json["message"]?["text"]?.string == "default only")
        }
    }

    /// `PUT /channels/{name}/device` changes that channel's frame at once (iphone portrait:
    /// 320 × 20); an unknown device is 422; the others keep theirs.
    @Test func device() throws {
        try withLiveServer { live in
            let changed = try live.request(
                "PUT", "/channels/phone/device", headers: [("Content-Type", "application/json")],
                body: #"{"device": "iphone"}"#)
            #expect(changed.status == 200)
            #expect(changed.json["device"]?.string == "iphone")
            let frame = changed.json["frame"]
            #expect(frame?["x"]?.number == 0)
            #expect(frame?["y"]?.number == 0)
            #expect(frame?["width"]?.number == 320)
            #expect(frame?["height"]?.number == 20)
            #expect(changed.json["version"]?.int == 1)
            #expect(try live.get("/channels/phone/overlay").json["frame"]?["width"]?.number == 320)
            #expect(try live.get("/channels/phone").json["device"]?.string == "iphone")

            let notch = try live.request("PUT", "/channels/phone/device", body: "iphone-notch")
            // A notch makes `auto` the pill: the window reaches its bottom, 44 − 7 + 50 = 87.
            #expect(notch.json["presentation"]?.string == "pill")
            #expect(notch.json["frame"]?["width"]?.number == 375)
            #expect(notch.json["frame"]?["height"]?.number == 87)
            #expect(notch.json["version"]?.int == 2)

            expectError(
                try live.request(
                    "PUT", "/channels/phone/device", headers: [("Content-Type", "application/json")],
                    body: #"{"device": "pixel"}"#), status: 422, code: "invalid_field", field: "device")
            #expect(try live.get("/channels/phone/overlay").json["device"]?.string == "iphone-notch")
            #expect(try live.version("/channels/phone/overlay") == 2)

            let unchanged = try live.get("/overlay").json
            #expect(unchanged["device"]?.string == "ipad")
            #expect(unchanged["frame"]?["width"]?.number == 768)
            // The unprefixed route changes the default channel.
            #expect(try live.request("PUT", "/device", body: "iphone").json["frame"]?["width"]?.number == 320)
        }
    }
}
