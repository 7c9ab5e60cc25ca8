import Foundation
import OverlayClient
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `updates()` and `events()` against real servers: changes in order, restarts, long-poll, and
/// connections closed when the reader goes.
@Suite("OverlayClient updates")
struct UpdatesTests {
    /// Quick reconnections, so that a restart is followed within a second.
    static func configuration(_ transport: OverlayClient.Transport = .automatic) -> OverlayClient.Configuration {
        var configuration = OverlayClient.Configuration()
        configuration.transport = transport
        configuration.reconnectDelay = 0.05
        configuration.maximumReconnectDelay = 0.2
        configuration.longPollWait = 5
        return configuration
    }

    /// The overlay now, then each change; versions only grow; it ends on the server's overlay.
    @Test(arguments: [OverlayClient.Transport.events, .longPoll], Network.allCases)
    func followsChanges(transport: OverlayClient.Transport, network: Network) async throws {
        let server = try await ServerProcess.start(["--clock", "manual", "--ephemeral"])
        let writer = OverlayClient(url: server.url)
        let reader = network.client(server.url, configuration: Self.configuration(transport))
        let collector = Collector(reader.events())
        defer { collector.task.cancel() }
        #expect(await eventually { collector.overlays.first?.version == 0 })

        _ = try await writer.post("one", kind: .sending)
        _ = try await writer.post("two")
        _ = try await writer.advanceClock(by: 0.25)
        let message = try await writer.patch(1, kind: .sent)
        _ = try await writer.advanceClock(by: 2)
        let current = try await writer.overlay()
        #expect(current.label?.text == "two")
        #expect(await eventually { collector.hasReached(current) })
        #expect(collector.problems(restarts: 0).isEmpty, "\(collector.problems(restarts: 0))")
        // An event stream is sent every version; a long-poll gets the version current when it is
        // answered, so one that re-polls after the clock moved on never sees the "sent" moment.
        if transport == .events {
            #expect(collector.overlays.contains { $0.message?.id == message.id && $0.message?.kind == .sent })
        }
        #expect(collector.disconnections.isEmpty)
    }

    /// Across a restart, durable (kill -9, same data directory) or ephemeral (state starts afresh),
    /// the reader reports the loss, reconnects by itself, and ends on the new server's overlay
    /// with no overlay twice.
    @Test(arguments: [false, true], Network.allCases)
    func acrossRestart(ephemeral: Bool, network: Network) async throws {
        let directory = try TemporaryDirectory()
        let storage = ephemeral ? ["--ephemeral"] : ["--data-dir", directory.path]
        var server = try await ServerProcess.start(["--clock", "manual"] + storage)
        let port = server.port
        let reader = network.client(server.url, configuration: Self.configuration())
        let collector = Collector(reader.events())
        defer { collector.task.cancel() }

        var writer = OverlayClient(url: server.url)
        _ = try await writer.post("before the restart", kind: .sending)
        _ = try await writer.advanceClock(by: 0.25)
        let before = try await writer.overlay()
        #expect(await eventually { collector.hasReached(before) })

        await server.stop(signal: SIGKILL)
        #expect(await eventually { !collector.disconnections.isEmpty })
        server = try await ServerProcess.start(["--clock", "manual"] + storage, port: port)
        writer = OverlayClient(url: server.url)
        _ = try await writer.post("after the restart", kind: .sent)
        let after = try await writer.overlay()
        if ephemeral {
            #expect(after.version < before.version)
        } else {
            #expect(after.version > before.version)
        }
        #expect(
            await eventually { collector.hasReached(after) }, "last: \(String(describing: collector.overlays.last))")
        #expect(collector.problems(restarts: ephemeral ? 1 : 0).isEmpty, "\(collector.problems(restarts: 1))")
        #expect(collector.end == nil)
    }

    /// Cancelling the reading task ends the sequence and closes its connection: the server counts
    /// no stream or waiter, and no TCP connection to it is left on this machine.
    @Test(arguments: [OverlayClient.Transport.events, .longPoll], Network.allCases)
    func cancellationClosesTheConnection(transport: OverlayClient.Transport, network: Network) async throws {
        let server = try await ServerProcess.start(["--clock", "manual", "--ephemeral"])
        // A long-poll that outlasts the test: one that ended (304) between the two looks below
        // would leave no connection for a moment, before the next poll's.
        var configuration = Self.configuration(transport)
        configuration.longPollWait = 60
        let reader = network.client(server.url, configuration: configuration)
        let collector = Collector(reader.events())
        #expect(try await eventually { try await Raw.openReaders(server) == 1 })
        #expect(await eventually { Raw.connections(toPort: server.port) >= 1 })

        collector.task.cancel()
        #expect(await eventually { collector.end != nil })
        if case .failure(let error)? = collector.end { Issue.record("ended with \(error)") }
        #expect(try await eventually { try await Raw.openReaders(server) == 0 })
        #expect(await eventually { Raw.connections(toPort: server.port) == 0 })
    }

    /// Leaving a `for await` loop early closes the connection too.
    @Test(arguments: Network.allCases)
    func breakClosesTheConnection(network: Network) async throws {
        let server = try await ServerProcess.start(["--clock", "manual", "--ephemeral"])
        let reader = network.client(server.url, configuration: Self.configuration())
        var first: Overlay?
        for try await overlay in reader.updates() {
            first = overlay
            break
        }
        #expect(first?.version == 0)
        #expect(try await eventually { try await Raw.openReaders(server) == 0 })
        #expect(await eventually { Raw.connections(toPort: server.port) == 0 })
    }

    /// What retrying cannot mend ends the sequence with the server's error.
    @Test(arguments: Network.allCases)
    func unauthorizedEndsTheSequence(network: Network) async throws {
        let server = try await ServerProcess.start(
            ["--clock", "manual", "--ephemeral"], environment: ["OVERLAYD_READ_TOKEN": "reading-token"])
        let collector = Collector(network.client(server.url, configuration: Self.configuration()).events())
        #expect(await eventually { collector.end != nil })
        guard case .failure(let error as OverlayClientError)? = collector.end else {
            Issue.record("ended with \(String(describing: collector.end))")
            return
        }
        #expect(error.status == 401)
        #expect(error.code == "unauthorized")
        let authorised = network.client(server.url, token: "reading-token", configuration: Self.configuration())
        var iterator = authorised.updates().makeAsyncIterator()
        #expect(try await iterator.next()?.version == 0)
    }
}

/// Where streaming fails on the way to the server, `automatic` falls back to long-poll.
@Suite("OverlayClient long-poll fallback")
struct FallbackTests {
    /// A proxy that holds event streams without a byte, or refuses them: the reader still gets
    /// every change, by long-poll.
    @Test(arguments: [TestProxy.Events.stall, .notFound], Network.allCases)
    func fallsBackToLongPoll(events: TestProxy.Events, network: Network) async throws {
        let server = try await ServerProcess.start(["--clock", "manual", "--ephemeral"])
        let proxy = try TestProxy(upstream: server.port, events: events)
        var configuration = UpdatesTests.configuration()
        configuration.streamIdleTimeout = 1
        let collector = Collector(network.client(proxy.url, configuration: configuration).events())
        defer { collector.task.cancel() }
        let writer = OverlayClient(url: server.url)
        #expect(await eventually { collector.overlays.first?.version == 0 })
        // Stalled until its timeout, or refused at once: then a long-poll waits at the server.
        #expect(await eventually { proxy.requests.contains { $0.contains("/overlay?wait=") } })
        #expect(try await eventually { try await Raw.openReaders(server) == 1 })

        _ = try await writer.post("through the proxy", kind: .sending)
        _ = try await writer.advanceClock(by: 0.25)
        let current = try await writer.overlay()
        #expect(await eventually { collector.hasReached(current) })
        #expect(collector.problems(restarts: 0).isEmpty)
        #expect(proxy.requests.filter { $0.contains("/events") }.count == 1)
        #expect(proxy.requests.filter { $0.contains("/overlay?wait=") }.count >= 2)
    }

    /// `.events` does not fall back: a refused stream ends the sequence with the refusal.
    @Test(arguments: Network.allCases)
    func eventsOnlyEndsWithTheRefusal(network: Network) async throws {
        let server = try await ServerProcess.start(["--clock", "manual", "--ephemeral"])
        let proxy = try TestProxy(upstream: server.port, events: .notFound)
        let collector = Collector(
            network.client(proxy.url, configuration: UpdatesTests.configuration(.events)).events())
        defer { collector.task.cancel() }
        #expect(await eventually { collector.end != nil })
        guard case .failure(let error as OverlayClientError)? = collector.end else {
            Issue.record("ended with \(String(describing: collector.end))")
            return
        }
        #expect(error.status == 404)
        #expect(error.code == "not_found")
        #expect(collector.overlays.count == 1)
        #expect(!proxy.requests.contains { $0.contains("wait=") })
    }
}

/// A stream cut on the way (the server still up): the reader reconnects with `Last-Event-ID`,
/// and what it yields next is only what is new.
@Suite("OverlayClient reconnection")
struct ReconnectionTests {
    @Test(arguments: Network.allCases)
    func reconnectsWithLastEventID(network: Network) async throws {
        let server = try await ServerProcess.start(["--clock", "manual", "--ephemeral"])
        let proxy = try TestProxy(upstream: server.port, events: .pass)
        let collector = Collector(
            network.client(proxy.url, configuration: UpdatesTests.configuration(.events)).events())
        defer { collector.task.cancel() }
        let writer = OverlayClient(url: server.url)
        _ = try await writer.post("before the cut", kind: .sending)
        let before = try await writer.overlay()
        #expect(await eventually { collector.hasReached(before) })
        // The first stream too starts after the overlay the GET before it gave.
        let first = try #require(proxy.requestHeads.first { $0.contains("/events") })
        #expect(first.lowercased().contains("last-event-id: \(collector.overlays[0].version)\r\n"), "\(first)")

        proxy.cutStreams()
        #expect(await eventually { proxy.requests.filter { $0.contains("/events") }.count == 2 })
        let again = try #require(proxy.requestHeads.last { $0.contains("/events") })
        #expect(again.lowercased().contains("last-event-id: \(before.version)\r\n"), "\(again)")
        #expect(collector.disconnections.count == 1)
        #expect(collector.overlays.count { $0.version == before.version } == 1)

        _ = try await writer.advanceClock(by: 0.25)
        let after = try await writer.overlay()
        #expect(await eventually { collector.hasReached(after) })
        #expect(collector.problems(restarts: 0).isEmpty, "\(collector.problems(restarts: 0))")
    }
}
