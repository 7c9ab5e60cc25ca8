import Platform
import Synchronization
import TestSupport
import Testing

@testable import OverlayPublisher

#if canImport(Glibc)
    import Glibc
#endif

/// A transport the test steers: it records every request and answers what `outcome` says; with
/// `gate` closed, a request waits until it opens (an endpoint that hangs).
final class ScriptedTransport: PublishTransport, @unchecked Sendable {
    struct Sent: Equatable {
        var url: String
        var body: String
    }

    private struct State {
        var sent: [Sent] = []
        var outcome = TransportResult.status(201)
        var gateOpen = true
        var waiting = 0
    }
    private let state = Lock(State())

    var sent: [Sent] { state.withLock { $0.sent } }
    /// Requests waiting at the closed gate.
    var waiting: Int { state.withLock { $0.waiting } }

    func answer(_ outcome: TransportResult) { state.withLock { $0.outcome = outcome } }
    /// Switches the answer and returns how many requests were answered before the switch.
    func switchAnswer(to outcome: TransportResult) -> Int {
        state.withLock { state in
            state.outcome = outcome
            return state.sent.count
        }
    }
    func closeGate() { state.withLock { $0.gateOpen = false } }
    func openGate() { state.withLock { $0.gateOpen = true } }

    func post(url: String, body: [UInt8]) -> TransportResult {
        state.withLock { $0.waiting += 1 }
        while !state.withLock({ $0.gateOpen }) { usleep(500) }
        return state.withLock { state in
            state.waiting -= 1
            state.sent.append(Sent(url: url, body: String(decoding: body, as: UTF8.self)))
            return state.outcome
        }
    }
}

/// Collects the publisher's log lines.
final class LogLines: Sendable {
    private let lines = Lock<[String]>([])
    var all: [String] { lines.withLock { $0 } }
    func append(_ line: String) { lines.withLock { $0.append(line) } }
    func count(containing text: String) -> Int { all.filter { $0.contains(text) }.count }
}

@Suite("Publisher")
struct PublisherTests {
    private func make(
        _ transport: ScriptedTransport, depth: Int = 16, log: LogLines = LogLines()
    ) -> Publisher<String> {
        var configuration = PublisherConfiguration(urlTemplate: "http://pub.test:8090/pub/{channel}?x=1")
        configuration.queueDepth = depth
        configuration.initialRetryDelay = 0.01
        configuration.maximumRetryDelay = 0.04
        return Publisher(
            configuration: configuration, transport: transport, encode: { Array("{\"v\":\($0)}".utf8) },
            log: { log.append($0) })
    }

    @Test func everyVersionIsPostedToItsChannelsURLInOrder() {
        let transport = ScriptedTransport()
        let publisher = make(transport)
        defer { publisher.stop(grace: 0) }
        for version in 1...10 { publisher.offer(channel: "ci", version: UInt64(version), payload: "\(version)") }
        publisher.offer(channel: "other-1", version: 3, payload: "x")
        #expect(publisher.waitUntilIdle(timeout: 10))
        let sent = transport.sent
        #expect(
            sent.filter { $0.url == "http://pub.test:8090/pub/ci?x=1" }.map(\.body) == (1...10).map { "{\"v\":\($0)}" })
        #expect(sent.filter { $0.url == "http://pub.test:8090/pub/other-1?x=1" }.map(\.body) == ["{\"v\":x}"])
        let statistics = publisher.statistics
        #expect(statistics.published == 11)
        #expect(statistics.failed == 0 && statistics.retried == 0 && statistics.queued == 0 && !statistics.failing)
    }

    /// The endpoint hangs on the first request: offers keep returning, the queue stays within its
    /// bound, and once the endpoint answers the newest versions go out.
    @Test func offeringNeverWaitsForTheEndpoint() {
        let transport = ScriptedTransport()
        transport.closeGate()
        let publisher = make(transport, depth: 4)
        defer { publisher.stop(grace: 0) }
        publisher.offer(channel: "a", version: 1, payload: "1")
        #expect(eventually { transport.waiting == 1 })
        let finished = Atomic<Int>(0)
        onDetachedThread {
            for version in 2...5_000 { publisher.offer(channel: "a", version: UInt64(version), payload: "\(version)") }
            for version in 1...100 { publisher.offer(channel: "b", version: UInt64(version), payload: "b\(version)") }
            finished.store(1, ordering: .releasing)
        }
        // Every offer returned while the one request still hangs.
        #expect(eventually { finished.load(ordering: .acquiring) == 1 })
        #expect(transport.waiting == 1)
        #expect(transport.sent.isEmpty)
        #expect(publisher.statistics.queued == 8)
        transport.openGate()
        #expect(publisher.waitUntilIdle(timeout: 10))
        #expect(
            transport.sent.map(\.body) == ["{\"v\":1}"]
                + (4997...5000).map { "{\"v\":\($0)}" }.interleaved(
                    with: (97...100).map { "{\"v\":b\($0)}" }))
        #expect(publisher.statistics.superseded == 5_000 - 1 - 4 + 100 - 4)
    }

    /// Down for a while, then back: every failed request is counted, the retries back off, one
    /// line says publishing stopped and one that it resumed, and each channel that changed
    /// meanwhile sends its current version once.
    @Test func anOutageEndsWithEachChannelsCurrentVersion() {
        let transport = ScriptedTransport()
        transport.answer(.failed("Connection refused"))
        let log = LogLines()
        let publisher = make(transport, log: log)
        defer { publisher.stop(grace: 0) }
        for version in 1...20 {
            publisher.offer(channel: "a", version: UInt64(version), payload: "a\(version)")
            publisher.offer(channel: "b", version: UInt64(version), payload: "b\(version)")
        }
        #expect(eventually { publisher.statistics.failed >= 6 })
        #expect(publisher.statistics.failing)
        #expect(publisher.statistics.queued <= 2)
        for version in 21...30 { publisher.offer(channel: "a", version: UInt64(version), payload: "a\(version)") }
        publisher.offer(channel: "c", version: 1, payload: "c1")
        #expect(eventually { publisher.statistics.queued == 3 })
        let failedBefore = transport.switchAnswer(to: .status(202))
        #expect(publisher.waitUntilIdle(timeout: 10))
        let after = Array(transport.sent.dropFirst(failedBefore)).map(\.body)
        #expect(after.sorted() == ["{\"v\":a30}", "{\"v\":b20}", "{\"v\":c1}"])
        let statistics = publisher.statistics
        #expect(statistics.published == 3)
        #expect(statistics.failed == UInt64(failedBefore))
        // Every request after the first failure was a retry, up to the first that got through.
        #expect(statistics.retried == statistics.failed)
        #expect(!statistics.failing)
        #expect(log.count(containing: "publishing stopped") == 1)
        #expect(log.count(containing: "publishing resumed") == 1)
        #expect(log.all.count == 2)
        #expect(log.all[0].contains("error=\"Connection refused\""))
        #expect(log.all[0].contains("endpoint=http://pub.test:8090/pub/{channel}?x=1"))
        #expect(log.all[1].contains("failed_requests=\(failedBefore)"))
    }

    @Test(arguments: [500, 502, 503, 408, 429, 0])
    func anUnavailableStatusIsRetried(status: Int) {
        let transport = ScriptedTransport()
        transport.answer(.status(status))
        let publisher = make(transport)
        defer { publisher.stop(grace: 0) }
        publisher.offer(channel: "a", version: 1, payload: "1")
        #expect(eventually { transport.sent.count >= 3 })
        transport.answer(.status(201))
        #expect(publisher.waitUntilIdle(timeout: 10))
        #expect(Set(transport.sent.map(\.body)) == ["{\"v\":1}"])
        #expect(publisher.statistics.published == 1)
        #expect(publisher.statistics.retried == publisher.statistics.failed)
    }

    /// A 4xx other than 408 and 429 is about the message: it is dropped, not retried, and the
    /// next versions still go out.
    @Test(arguments: [400, 403, 404, 413])
    func aRefusalDropsThatVersionOnly(status: Int) {
        let transport = ScriptedTransport()
        transport.answer(.status(status))
        let log = LogLines()
        let publisher = make(transport, log: log)
        defer { publisher.stop(grace: 0) }
        publisher.offer(channel: "a", version: 1, payload: "1")
        publisher.offer(channel: "a", version: 2, payload: "2")
        #expect(publisher.waitUntilIdle(timeout: 10))
        transport.answer(.status(201))
        publisher.offer(channel: "a", version: 3, payload: "3")
        #expect(publisher.waitUntilIdle(timeout: 10))
        #expect(transport.sent.map(\.body) == ["{\"v\":1}", "{\"v\":2}", "{\"v\":3}"])
        let statistics = publisher.statistics
        #expect(statistics.failed == 2 && statistics.retried == 0 && statistics.published == 1 && !statistics.failing)
        // One line for the two refusals (at most one a minute).
        #expect(log.all.count == 1)
        #expect(log.all.first?.contains("status=\(status)") == true)
    }

    @Test func stoppingSendsWhatWaitsWhileTheEndpointAnswers() {
        let transport = ScriptedTransport()
        transport.closeGate()
        let publisher = make(transport)
        for version in 1...3 { publisher.offer(channel: "a", version: UInt64(version), payload: "\(version)") }
        #expect(eventually { transport.waiting == 1 })
        // The endpoint answers once the stop has begun.
        let stopping = Atomic<Bool>(false)
        onDetachedThread {
            _ = eventually { stopping.load(ordering: .acquiring) }
            transport.openGate()
        }
        stopping.store(true, ordering: .releasing)
        publisher.stop(grace: 10)
        #expect(transport.sent.map(\.body) == ["{\"v\":1}", "{\"v\":2}", "{\"v\":3}"])
        // Nothing is taken once stopped.
        publisher.offer(channel: "a", version: 4, payload: "4")
        #expect(publisher.statistics.queued == 0)
    }

    /// A request that hangs does not hold up a stop beyond its grace: the server's stop has its
    /// own bound. The thread ends by itself once the request does, and sends nothing more.
    @Test func stoppingDoesNotWaitForAHangingRequest() {
        let transport = ScriptedTransport()
        transport.closeGate()
        let log = LogLines()
        var publisher: Publisher<String>? = make(transport, log: log)
        publisher?.offer(channel: "a", version: 1, payload: "1")
        publisher?.offer(channel: "b", version: 1, payload: "1")
        #expect(eventually { transport.waiting == 1 })
        publisher?.stop(grace: 0.05)
        // Returned with the request still on its way.
        #expect(transport.waiting == 1)
        #expect(transport.sent.isEmpty)
        #expect(log.all.last == "overlayd publishing ended unsent=2\n")
        // The thread holds the publisher until it ends: once the publisher is gone, so is the thread.
        weak let ended = publisher
        publisher = nil
        transport.openGate()
        #expect(eventually { ended == nil })
        #expect(transport.sent.count == 1)
    }

    @Test func stoppingDuringAnOutageDropsWhatWaitsAndSaysSo() {
        let transport = ScriptedTransport()
        transport.answer(.failed("timed out"))
        let log = LogLines()
        let publisher = make(transport, log: log)
        publisher.offer(channel: "a", version: 1, payload: "1")
        publisher.offer(channel: "b", version: 1, payload: "1")
        #expect(eventually { publisher.statistics.failing })
        publisher.stop(grace: 10)
        #expect(log.all.last == "overlayd publishing ended unsent=2\n")
    }

    @Test func theLogNamesTheEndpointWithoutItsPassword() {
        let transport = ScriptedTransport()
        transport.answer(.failed("refused"))
        let log = LogLines()
        var configuration = PublisherConfiguration(urlTemplate: "https://user:secret@pub.test/pub/{channel}")
        configuration.initialRetryDelay = 0.01
        let publisher = Publisher<String>(
            configuration: configuration, transport: transport, encode: { Array($0.utf8) }, log: { log.append($0) })
        publisher.offer(channel: "a", version: 1, payload: "1")
        #expect(eventually { !log.all.isEmpty })
        publisher.stop(grace: 0)
        #expect(log.all.first?.contains("endpoint=https://pub.test/pub/{channel}") == true)
        #expect(!log.all.joined().contains("secret"))
    }
}

extension Array {
    /// a0, b0, a1, b1, …
    fileprivate func interleaved(with other: [Element]) -> [Element] {
        var result: [Element] = []
        for index in 0..<Swift.max(count, other.count) {
            if index < count { result.append(self[index]) }
            if index < other.count { result.append(other[index]) }
        }
        return result
    }
}
