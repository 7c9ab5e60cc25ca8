import Platform
import TestSupport
import Testing

@testable import MicroHTTP

/// The one registry of event streams: listed per thread shard, optionally under a group, and
/// taken off by the end of their connection alone (no close handler); the server's stop and
/// sweep walk all of it.
@Suite("Stream registry")
struct StreamRegistryTests {
    /// The streams `registry` lists under `group`, by identity.
    static func listed(_ registry: StreamRegistry, in group: StreamGroup) -> Set<ObjectIdentifier> {
        var found: Set<ObjectIdentifier> = []
        registry.forEach(in: group) { found.insert(ObjectIdentifier($0)) }
        return found
    }

    static func ids(_ streams: HTTPStream...) -> Set<ObjectIdentifier> { Set(streams.map(ObjectIdentifier.init)) }

    /// A group's streams are its own; listing a stream again under another group moves it there,
    /// and the server's listing (under no group) never takes a stream out of its group.
    @Test func groupsAndMoves() {
        let registry = StreamRegistry()
        let (red, blue) = (StreamGroup(), StreamGroup())
        let (a, b, c, loose) = (HTTPStream(), HTTPStream(), HTTPStream(), HTTPStream())
        #expect(registry.list(a, in: red) && registry.list(b, in: red) && registry.list(c, in: blue))
        registry.listIfAbsent(loose, shard: 3)
        #expect(Self.listed(registry, in: red) == Self.ids(a, b))
        #expect(Self.listed(registry, in: blue) == Self.ids(c))
        #expect((red.count, blue.count, registry.count) == (2, 1, 4))
        #expect(registry.list(b, in: blue))
        #expect(Self.listed(registry, in: red) == Self.ids(a))
        #expect(Self.listed(registry, in: blue) == Self.ids(b, c))
        #expect((red.count, blue.count, registry.count) == (1, 2, 4))
        registry.listIfAbsent(a, shard: 0)
        #expect(Self.listed(registry, in: red) == Self.ids(a))
        // The server's listing first, the group's after: the stream moves into the group.
        #expect(registry.list(loose, in: red))
        #expect(Self.listed(registry, in: red) == Self.ids(a, loose))
        #expect(Set(registry.all.map(ObjectIdentifier.init)) == Self.ids(a, b, c, loose))
        // Ended, each leaves wherever it is listed (and lets go of the registry it held).
        for stream in [a, b, c, loose] { stream.end() }
        #expect((red.count, blue.count, registry.count) == (0, 0, 0))
    }

    /// A stream whose connection ends (here, one without a connection ended) leaves the registry
    /// and its group's count by itself, and is not listed again.
    @Test func theEndOfItsConnectionUnlistsAStream() {
        let registry = StreamRegistry()
        let group = StreamGroup()
        let streams = (0..<5).map { _ in HTTPStream() }
        for stream in streams { registry.list(stream, in: group) }
        // Ended from the middle and the end: the last stream moves into each gap.
        streams[1].end()
        streams[4].end()
        #expect(group.count == 3 && registry.count == 3)
        #expect(Self.listed(registry, in: group) == Set([0, 2, 3].map { ObjectIdentifier(streams[$0]) }))
        for stream in streams { stream.end() }
        #expect(group.count == 0 && registry.count == 0)
        #expect(Self.listed(registry, in: group).isEmpty)
        #expect(!registry.list(streams[0], in: group))
        #expect(group.count == 0)
    }

    /// Listing and ending race on every stream: whichever comes first, nothing stays listed (the
    /// listing looks again once it is in, and a release takes off what it finds).
    @Test func listingRacingTheEndLeavesNothing() {
        let registry = StreamRegistry()
        let group = StreamGroup()
        let streams = (0..<2_000).map { _ in HTTPStream() }
        onThreads(2) { thread in
            for stream in streams {
                if thread == 0 { registry.list(stream, in: group) } else { stream.end() }
            }
        }
        #expect(registry.count == 0)
        #expect(group.count == 0)
    }

    /// A fan-out walks the other threads' shards first and the caller's own last: the other pool
    /// threads get their streams to write while the caller is still sending.
    @Test func theCallersOwnShardComesLast() {
        let registry = StreamRegistry()
        let group = StreamGroup()
        // One stream in each shard: listed there by the server, then moved into the group.
        let streams = (0..<ThreadShard.count).map { shard in
            let stream = HTTPStream()
            registry.listIfAbsent(stream, shard: shard)
            registry.list(stream, in: group)
            return stream
        }
        defer { for stream in streams { stream.end() } }
        var order: [ObjectIdentifier] = []
        registry.forEach(in: group) { order.append(ObjectIdentifier($0)) }
        let own = ThreadShard.current
        let expected = (1...ThreadShard.count).map { ObjectIdentifier(streams[(own + $0) % ThreadShard.count]) }
        #expect(order == expected)
        #expect(order.last == ObjectIdentifier(streams[own]))
    }

    /// A server whose every request is a stream sent one block; `/grouped` ones its handler lists
    /// under `group` too, as the service lists a channel's.
    static func serving(_ registry: StreamRegistry, group: StreamGroup) throws -> HTTPServer {
        var options = HTTPServerOptions()
        options.port = 0
        options.threads = 2
        return try HTTPServer(
            options: options,
            handler: { request, responder in
                if let stream = responder.stream(headers: []) {
                    if request.path == "/grouped" { registry.list(stream, in: group) }
                    stream.send(Array("data: hello\n\n".utf8))
                }
                return RequestLabels()
            }, streams: registry)
    }

    /// The server's stop ends every stream it lists, in a group or not, and each leaves the
    /// registry as its connection closes.
    @Test func stopEndsEveryStream() throws {
        let registry = StreamRegistry()
        let group = StreamGroup()
        let server = try Self.serving(registry, group: group)
        defer { server.stop(grace: 0) }
        let clients = try ["/grouped", "/loose", "/grouped"].map {
            try StreamClient.events(port: server.port, path: $0)
        }
        for client in clients { #expect(client.nextBlock()?.data == "hello") }
        #expect(registry.count == 3 && group.count == 2)
        server.stop(grace: 1)
        for client in clients { #expect(client.nextBlock() == nil && client.ended) }
        #expect(registry.count == 0 && group.count == 0)
    }

    /// The sweep walks the registry: a stream whose client left is ended, and leaves it with its
    /// connection.
    @Test func theSweepEndsAStreamWhoseClientLeft() throws {
        let registry = StreamRegistry()
        let group = StreamGroup()
        let server = try Self.serving(registry, group: group)
        defer { server.stop(grace: 0) }
        let leaving = try StreamClient.events(port: server.port, path: "/grouped")
        let staying = try StreamClient.events(port: server.port, path: "/grouped")
        #expect(leaving.nextBlock()?.data == "hello" && staying.nextBlock()?.data == "hello")
        #expect(group.count == 2)
        leaving.close()
        var reaped = 0
        #expect(
            eventually {
                reaped += server.reapDisconnected(); return reaped == 1 && group.count == 1
            })
        #expect(registry.count == 1)
        #expect(!staying.ended)
    }
}
