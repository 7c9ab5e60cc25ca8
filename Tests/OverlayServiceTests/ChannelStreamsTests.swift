import MicroHTTP
import Platform
import ServiceTestSupport
import Synchronization
import TestSupport
import Testing

@testable import OverlayService

/// A channel's event streams as the one registry lists them: counted while their connection
/// lasts and no longer once it ends (no close handler tells the channel), sent versions that only
/// grow however subscriptions and changes race, and ended by the server's stop.
@Suite("A channel's streams")
struct ChannelStreamsTests {
    /// A detached event stream on `path`, answered by the service's own dispatch.
    static func subscribe(
        _ service: OverlayService, _ path: String, headers: [Header] = [],
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> HTTPStream {
        let answer = DetachedAnswer.handle(HTTPRequest("GET", path, headers: headers), service.handle)
        guard case .stream(200, _, let stream)? = answer.current else {
            Issue.record("no stream: \(String(describing: answer.current))", sourceLocation: sourceLocation)
            throw TestSupportError("no stream on \(path)")
        }
        return stream
    }

    /// The `id:` of each event a stream was sent (and not yet taken).
    static func ids(_ stream: HTTPStream) -> [UInt64] {
        String(decoding: stream.takeBuffered().bytes, as: UTF8.self).split(separator: "\n")
            .compactMap { $0.hasPrefix("id: ") ? UInt64($0.dropFirst(4)) : nil }
    }

    /// A stream whose connection ends leaves its channel's count, `GET /channels/{name}` and the
    /// metrics at once; the channel's other stream goes on receiving.
    @Test func aStreamWhoseConnectionEndsLeavesItsChannel() throws {
        let service = try OverlayService.testing()
        let leaving = try Self.subscribe(service, "/channels/x/events")
        let staying = try Self.subscribe(service, "/channels/x/events")
        let channel = try #require(service.channels.existing("x"))
        #expect(channel.subscriberCount == 2)
        #expect(service.answer(HTTPRequest("GET", "/channels/x")).json["subscribers"]?.int == 2)
        // A stream without a connection ends as a connection's end would end it.
        leaving.end()
        #expect(channel.subscriberCount == 1)
        #expect(service.answer(HTTPRequest("GET", "/channels/x")).json["subscribers"]?.int == 1)
        let metrics = String(decoding: service.answer(HTTPRequest("GET", "/metrics")).body, as: UTF8.self)
        #expect(metrics.contains(#"overlayd_event_streams{channel="x"} 1"#))
        _ = Self.ids(staying)
        #expect(service.answer(HTTPRequest("POST", "/channels/x/messages", body: "hi")).status == 202)
        #expect(Self.ids(staying) == [1])
        staying.end()
        #expect(channel.subscriberCount == 0)
        #expect(channel.retireIfUnread())
    }

    /// Over sockets: a client that leaves is found by the sweep, and its stream leaves the
    /// server's registry and its channel's count with its connection. (On `default`: a channel
    /// only readers made is let go once they leave, and its count with it.)
    @Test func aClientThatLeavesLeavesTheRegistry() throws {
        try withLiveServer { live in
            let client = try StreamClient.events(port: live.port)
            #expect(client.nextEvent()?.version == 0)
            #expect(try live.waitForMetric("overlayd_event_streams", toBe: 1))
            #expect(live.server.http.streams.count == 1)
            client.close()
            #expect(eventually { live.server.http.streams.count == 0 })
            #expect(try live.metric("overlayd_event_streams") == 0)
        }
    }

    /// A client that has the current version (`Last-Event-ID`) is sent nothing at once, and its
    /// stream takes no send of that version afterwards: what a change's fan-out, still running
    /// when the stream was listed, would send it.
    @Test func aClientWithTheCurrentVersionIsNotSentItAgain() throws {
        let service = try OverlayService.testing()
        #expect(service.answer(HTTPRequest("POST", "/messages", body: "hi")).status == 202)
        let stream = try Self.subscribe(service, "/events", headers: [Header(name: "Last-Event-ID", value: "1")])
        #expect(Self.ids(stream).isEmpty)
        stream.send(Array("id: 1\n\n".utf8), number: 1)
        #expect(Self.ids(stream).isEmpty)
        #expect(service.answer(HTTPRequest("POST", "/messages", body: "again")).status == 202)
        #expect(Self.ids(stream) == [2])
    }

    /// Subscriptions racing a writer's changes: every stream is sent versions that only grow,
    /// ending with the last, and one that said it has a version (`Last-Event-ID`) is never sent
    /// it or an older one, whichever of its subscription and a change's fan-out comes first.
    @Test func subscriptionsRacingChangesSeeVersionsGrow() throws {
        let service = try OverlayService.testing { $0.eventBufferBytes = 4096 }
        // Streams listed already, from eight new threads (one per shard), make each change's
        // fan-out long in every shard: subscriptions land in the middle of it.
        let crowded = Lock<[HTTPStream]>([])
        onThreads(ThreadShard.count) { _ in
            let streams = (0..<125).compactMap { _ in try? Self.subscribe(service, "/channels/race/events") }
            crowded.withLock { $0 += streams }
        }
        let crowd = crowded.withLock { $0 }
        #expect(crowd.count == 125 * ThreadShard.count)
        let subscribed = Lock<[(stream: HTTPStream, seen: UInt64?)]>([])
        let writing = Atomic(true)
        onThreads(3) { thread in
            if thread == 0 {
                for index in 0..<300 {
                    _ = service.answer(HTTPRequest("POST", "/channels/race/messages", body: "change \(index)"))
                }
                writing.store(false, ordering: .releasing)
                return
            }
            // Subscribing for as long as the changes go on (a change outlasts a subscription).
            var index = 0
            while writing.load(ordering: .acquiring) && index < 1_000 {
                var seen: UInt64?
                if index % 2 == 1 {
                    seen = service.answer(HTTPRequest("GET", "/channels/race/overlay")).json["version"]?.int
                        .map(UInt64.init)
                }
                let headers = seen.map { [Header(name: "Last-Event-ID", value: "\($0)")] } ?? []
                guard let stream = try? Self.subscribe(service, "/channels/race/events", headers: headers) else {
                    return
                }
                subscribed.withLock { $0.append((stream, seen)) }
                index += 1
            }
        }
        #expect(service.answer(HTTPRequest("POST", "/channels/race/messages", body: "last")).status == 202)
        let last = try #require(service.answer(HTTPRequest("GET", "/channels/race/overlay")).json["version"]?.int)
        let streams = subscribed.withLock { $0 }
        #expect(!streams.isEmpty)
        #expect(crowd.allSatisfy { Self.ids($0).last == UInt64(last) })
        for (stream, seen) in streams {
            let ids = Self.ids(stream)
            #expect(zip(ids, ids.dropFirst()).allSatisfy { $0 < $1 }, "\(ids)")
            #expect(ids.last == UInt64(last))
            if let seen { #expect(ids.allSatisfy { $0 > seen }, "seen \(seen): \(ids)") }
        }
    }

    /// The server's own stop ends the streams the service listed, on every channel, without the
    /// service's release of its readers.
    @Test func theServersStopEndsTheChannelsStreams() throws {
        try withUnsweptServer { live in
            let clients = try ["/events", "/channels/a/events", "/channels/b/events"].map {
                try StreamClient.events(port: live.port, path: $0)
            }
            for client in clients { #expect(client.nextEvent()?.version == 0) }
            #expect(live.http.streams.count == 3)
            live.http.stop(grace: 1)
            for client in clients { #expect(client.nextBlock() == nil && client.ended) }
            #expect(live.http.streams.count == 0)
            #expect(live.service.channels.existing("a")?.subscriberCount == 0)
        }
    }
}
