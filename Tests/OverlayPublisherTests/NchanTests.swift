import ServiceTestSupport
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// overlayd publishing to a real nchan (Debian's nginx module) that keeps its messages in Redis,
/// read by EventSource and long-poll subscribers. Skipped where nginx, the module or Redis is not
/// installed, except in CI (OVERLAYD_REQUIRE_NCHAN=1), which installs them.
@Suite(
    "nchan", .serialized,
    .enabled(
        if: NchanServer.isAvailable || NchanServer.isRequired,
        "needs nginx, libnginx-mod-nchan and redis-server (apt-get install nginx libnginx-mod-nchan redis-server)"))
struct NchanTests {
    /// overlayd on a manual clock (only writes make versions), publishing to `nchan`. The queue
    /// holds more than a test writes in a burst, so that no version gives way to a newer one.
    /// A worker crash would end subscriptions behind the test's back: none may happen.
    private func expectNoCrash(_ nchan: NchanServer, sourceLocation: SourceLocation = #_sourceLocation) {
        #expect(nchan.workerCrashes == 0, "\(nchan.errorLog.suffix(1500))", sourceLocation: sourceLocation)
    }

    private func overlayd(_ nchan: NchanServer, queue: Int = 64) throws -> LiveServer {
        try LiveServer {
            $0.publish = nchan.publishTemplate
            $0.publishQueue = queue
        }
    }

    /// Writes `count` messages and returns the overlay JSON of each new version, by version.
    private func write(
        _ live: LiveServer, _ channel: String, _ count: Int, from first: Int = 1
    ) throws -> [Int: String] {
        var overlays: [Int: String] = [:]
        for index in first..<(first + count) {
            #expect(try live.post(channel, "message \(index)") == 202)
            let overlay = try live.overlay(channel).text
            overlays[version(ofJSON: overlay)!] = overlay
        }
        return overlays
    }

    private func expectInNchanOrder(_ events: [StreamBlock], sourceLocation: SourceLocation = #_sourceLocation) {
        let ids = events.map { nchanOrder($0.id) }
        #expect(ids.allSatisfy { $0 != nil }, "ids \(events.map(\.id))", sourceLocation: sourceLocation)
        let ordered = zip(ids, ids.dropFirst()).allSatisfy { pair in
            guard let a = pair.0, let b = pair.1 else { return false }
            return a < b
        }
        #expect(ordered, "ids \(events.map(\.id))", sourceLocation: sourceLocation)
    }

    @Test func everyVersionReachesEverySubscriberInOrderOnce() throws {
        let nchan = try NchanServer()
        defer { expectNoCrash(nchan) }
        try withLiveServer(started: overlayd(nchan)) { live in
            let first = try StreamClient.events(port: nchan.port, path: "/sub/ci")
            let second = try StreamClient.events(port: nchan.port, path: "/sub/ci")
            #expect(first.status == 200)
            #expect(first.header("Content-Type")?.hasPrefix("text/event-stream") == true)
            let overlays = try write(live, "ci", 40)
            let last = try live.version(of: "ci")
            #expect(overlays.keys.sorted() == Array(1...40))
            for stream in [first, second] {
                let events = stream.events { $0.overlayVersion == last }
                #expect(events.map(\.overlayVersion) == Array(1...40).map { $0 })
                #expect(events.allSatisfy { $0.event == "overlay" })
                // The data is the overlay JSON of that version, byte for byte.
                #expect(events.allSatisfy { $0.overlayVersion.flatMap { overlays[$0] } == $0.data })
                expectInNchanOrder(events)
            }
            // Nothing after the last version: the next event either reader gets is the next version's,
            // not a duplicate come late.
            let next = try write(live, "ci", 1, from: 41)
            for stream in [first, second] {
                let event = stream.nextEvent()
                #expect(event?.overlayVersion == 41)
                #expect(event?.data == next[41])
            }
            // A reader can get an event before the publisher has read nchan's answer to its POST:
            // the count follows that answer.
            #expect(eventually { (try? live.metrics())?["overlayd_publish_published_total"] == 41 })
            #expect(try live.metrics()["overlayd_publish_failed_total"] == 0)
        }
    }

    /// nchan assigns its own message ids; a reader resumes with the last one it saw
    /// (`Last-Event-ID`, or `?last_event_id=` for a browser's EventSource) and gets exactly the
    /// versions it missed.
    @Test func aReaderResumesFromItsLastEventID() throws {
        let nchan = try NchanServer()
        defer { expectNoCrash(nchan) }
        try withLiveServer(started: overlayd(nchan)) { live in
            let stream = try StreamClient.events(port: nchan.port, path: "/sub/resume")
            _ = try write(live, "resume", 5)
            let seen = stream.events { $0.overlayVersion == 5 }
            #expect(seen.map(\.overlayVersion) == [1, 2, 3, 4, 5])
            let lastID = try #require(seen.last?.id)
            let missed = try write(live, "resume", 5, from: 6)
            #expect(eventually { (try? live.metrics())?["overlayd_publish_published_total"] == 10 })

            let resumed = try StreamClient.events(
                port: nchan.port, path: "/sub/resume", headers: [("Last-Event-ID", lastID)])
            let events = resumed.events { $0.overlayVersion == 10 }
            #expect(events.map(\.overlayVersion) == [6, 7, 8, 9, 10])
            #expect(events.allSatisfy { $0.overlayVersion.flatMap { missed[$0] } == $0.data })
            // Nothing more: the next event is the next version's.
            _ = try write(live, "resume", 1, from: 11)
            #expect(resumed.nextEvent()?.overlayVersion == 11)

            let encoded = lastID.replacingColons()
            let browser = try StreamClient.events(port: nchan.port, path: "/sub/resume?last_event_id=\(encoded)")
            #expect(browser.events { $0.overlayVersion == 10 }.map(\.overlayVersion) == [6, 7, 8, 9, 10])

            // A new reader without an id gets what the channel keeps, oldest first: it ends on the
            // current overlay.
            let fresh = try StreamClient.events(port: nchan.port, path: "/sub/resume")
            #expect(fresh.events { $0.overlayVersion == 10 }.map(\.overlayVersion) == Array(1...10))
        }
    }

    /// Long-poll: nchan answers with the oldest message it keeps, then each request carrying the
    /// previous answer's Etag and Last-Modified gets the next version, waiting for it if need be.
    @Test func aLongPollWalksTheVersions() throws {
        let nchan = try NchanServer()
        defer { expectNoCrash(nchan) }
        try withLiveServer(started: overlayd(nchan)) { live in
            _ = try write(live, "lp", 3)
            #expect(eventually { (try? live.metrics())?["overlayd_publish_published_total"] == 3 })
            var etag = ""
            var modified = ""
            for expected in 1...3 {
                let headers = expected == 1 ? [] : [("If-None-Match", etag), ("If-Modified-Since", modified)]
                let reply = try RawClient.request(
                    "GET", "/sub/lp", port: nchan.port, headers: headers, halfClose: false)
                #expect(reply.status == 200)
                #expect(version(ofJSON: reply.text) == expected)
                #expect(reply.header("Content-Type") == "application/json")
                etag = try #require(reply.header("Etag"))
                modified = try #require(reply.header("Last-Modified"))
            }
            // The fourth version is written once the long-poll below waits for it at nchan.
            let port = nchan.port
            onDetachedThread {
                _ = eventually { NchanTests.subscribers(port: port, channel: "lp") >= 1 }
                _ = try? live.post("lp", "the fourth")
            }
            let next = try RawClient.request(
                "GET", "/sub/lp", port: nchan.port,
                headers: [("If-None-Match", etag), ("If-Modified-Since", modified)],
                halfClose: false)
            #expect(next.status == 200)
            #expect(version(ofJSON: next.text) == 4)
            #expect(next.text == (try live.overlay("lp").text))
        }
    }

    /// nginx down while overlayd writes on: every write is answered, publishing stops; nginx back:
    /// publishing resumes by itself and a reader that resumes ends on the current version.
    @Test func afterThePublisherWasDownTheReaderEndsOnTheCurrentVersion() throws {
        let nchan = try NchanServer()
        defer { expectNoCrash(nchan) }
        try withLiveServer(started: overlayd(nchan)) { live in
            let before = try StreamClient.events(port: nchan.port, path: "/sub/down")
            _ = try write(live, "down", 3)
            let seen = before.events { $0.overlayVersion == 3 }
            #expect(seen.map(\.overlayVersion) == [1, 2, 3])
            let lastID = try #require(seen.last?.id)

            nchan.stopNginx()
            #expect(before.waitForClose())
            _ = try write(live, "down", 12, from: 4)
            #expect(eventually { (try? live.metrics())?["overlayd_publish_up"] == 0 })
            #expect(try live.metrics()["overlayd_publish_queue_depth"] == 1)

            try nchan.startNginx()
            #expect(eventually { (try? live.metrics())?["overlayd_publish_up"] == 1 })
            let current = try live.version(of: "down")
            #expect(current == 15)
            let resumed = try StreamClient.events(
                port: nchan.port, path: "/sub/down", headers: [("Last-Event-ID", lastID)])
            let events = resumed.events { $0.overlayVersion == current }
            #expect(events.last?.overlayVersion == current)
            let versions = events.compactMap(\.overlayVersion)
            #expect(versions.allSatisfy { $0 > 3 })
            #expect(zip(versions, versions.dropFirst()).allSatisfy { $0 < $1 })
            // Versions written while nchan was down gave way to the newest: at most the one in
            // flight when it went down precedes it.
            #expect(versions.count <= 2)
            // Nothing more: the next event is the next version's.
            _ = try write(live, "down", 1, from: 16)
            #expect(resumed.nextEvent()?.overlayVersion == 16)
            #expect(try live.metrics()["overlayd_publish_failed_total"] ?? 0 >= 1)
            #expect(try live.metrics()["overlayd_publish_retried_total"] ?? 0 >= 1)
        }
    }

    /// Redis restarted (losing what it held): nchan reconnects, overlayd's retries get through,
    /// and a reader that stayed connected receives the current version, nothing restarted.
    @Test func afterRedisRestartsDeliveryResumes() throws {
        let nchan = try NchanServer()
        defer { expectNoCrash(nchan) }
        try withLiveServer(started: overlayd(nchan)) { live in
            let reader = try StreamClient.events(port: nchan.port, path: "/sub/redis")
            _ = try write(live, "redis", 2)
            #expect(reader.events { $0.overlayVersion == 2 }.map(\.overlayVersion) == [1, 2])

            nchan.killRedis()
            _ = try write(live, "redis", 6, from: 3)
            try nchan.startRedis()
            let current = try live.version(of: "redis")
            let events = reader.events { $0.overlayVersion == current }
            #expect(events.last?.overlayVersion == current, "nginx: \(nchan.errorLog.suffix(2000))")
            let versions = events.compactMap(\.overlayVersion)
            #expect(zip(versions, versions.dropFirst()).allSatisfy { $0 < $1 })
            #expect(versions.allSatisfy { $0 > 2 })
            // And on from there, every version again, unless a publish failed once more while the
            // new Redis settled (nchan answers 5xx until its connection is back): then the versions
            // written meanwhile give way to the newest, as they do while nchan is down.
            let failedBefore = try live.metrics()["overlayd_publish_failed_total"] ?? 0
            _ = try write(live, "redis", 3, from: 9)
            let after = reader.events { $0.overlayVersion == current + 3 }.compactMap(\.overlayVersion)
            let failedAfter = try live.metrics()["overlayd_publish_failed_total"] ?? 0
            if failedAfter == failedBefore {
                #expect(after == [current + 1, current + 2, current + 3])
            } else {
                #expect(after.last == current + 3)
                #expect(zip(after, after.dropFirst()).allSatisfy { $0 < $1 })
                #expect(after.allSatisfy { $0 > current })
            }
        }
    }
}

extension NchanTests {
    /// The subscribers nchan counts on `channel`, from its publisher location's channel info.
    static func subscribers(port: Int, channel: String) -> Int {
        guard
            let reply = try? RawClient.request(
                "GET", "/pub/\(channel)", port: port, headers: [("Accept", "text/json")], halfClose: false),
            let range = reply.text.firstRange(of: "\"subscribers\": ")
        else { return 0 }
        return Int(reply.text[range.upperBound...].prefix { $0.isNumber }) ?? 0
    }
}

extension String {
    /// `:` as `%3A`, for an id in a query string.
    fileprivate func replacingColons() -> String {
        var result = ""
        for character in self { result += character == ":" ? "%3A" : String(character) }
        return result
    }
}

/// nchan's message id, `<seconds>:<tag>`, as a pair that orders as nchan does.
private func nchanOrder(_ id: String?) -> (Int, Int)? {
    guard let parts = id?.split(separator: ":"), parts.count == 2, let time = Int(parts[0]), let tag = Int(parts[1])
    else { return nil }
    return (time, tag)
}
