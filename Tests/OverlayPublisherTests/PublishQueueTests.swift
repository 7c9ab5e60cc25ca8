import Testing

@testable import OverlayPublisher

/// The queue alone: per-channel bounds, fairness between channels, only-growing versions, and
/// what an outage leaves in it.
@Suite("Publish queue")
struct PublishQueueTests {
    /// A payload the test can read back.
    final class Text {
        let value: String
        init(_ value: String) { self.value = value }
    }

    private func drain(_ queue: inout PublishQueue) -> [String] {
        var sent: [String] = []
        while let job = queue.next() { sent.append("\(job.channel)@\(job.version)") }
        return sent
    }

    @Test func versionsOfOneChannelComeOutInOrder() {
        var queue = PublishQueue(depth: 16)
        for version in 1...5 {
            #expect(
                queue.offer(channel: "a", version: UInt64(version), payload: Text("v\(version)"), latestOnly: false)
                    == 0)
        }
        #expect(queue.count == 5)
        #expect(drain(&queue) == ["a@1", "a@2", "a@3", "a@4", "a@5"])
        #expect(queue.isEmpty)
        #expect(queue.next() == nil)
    }

    @Test func channelsTakeTurns() {
        var queue = PublishQueue(depth: 16)
        for version in 1...3 {
            _ = queue.offer(channel: "a", version: UInt64(version), payload: Text(""), latestOnly: false)
        }
        _ = queue.offer(channel: "b", version: 7, payload: Text(""), latestOnly: false)
        _ = queue.offer(channel: "c", version: 1, payload: Text(""), latestOnly: false)
        _ = queue.offer(channel: "b", version: 8, payload: Text(""), latestOnly: false)
        // A busy channel does not hold the others back: one version each, round and round.
        #expect(drain(&queue) == ["a@1", "b@7", "c@1", "a@2", "b@8", "a@3"])
    }

    @Test func aFullChannelDropsItsOldest() {
        var queue = PublishQueue(depth: 3)
        var dropped = 0
        for version in 1...7 {
            dropped += queue.offer(channel: "a", version: UInt64(version), payload: Text(""), latestOnly: false)
        }
        _ = queue.offer(channel: "b", version: 1, payload: Text(""), latestOnly: false)
        #expect(dropped == 4)
        #expect(queue.count == 4)
        #expect(drain(&queue) == ["a@5", "b@1", "a@6", "a@7"])
    }

    @Test func depthOneIsLatestOnly() {
        var queue = PublishQueue(depth: 1)
        for version in 1...100 {
            _ = queue.offer(channel: "a", version: UInt64(version), payload: Text("p\(version)"), latestOnly: false)
        }
        #expect(queue.count == 1)
        let job = queue.next()
        #expect(job?.version == 100)
        #expect((job?.payload as? Text)?.value == "p100")
    }

    @Test func aVersionNotNewerThanTheLastOfferedIsDropped() {
        var queue = PublishQueue(depth: 16)
        #expect(queue.offer(channel: "a", version: 5, payload: Text(""), latestOnly: false) == 0)
        // Two writes finishing in the other order: the older one comes second and is not sent.
        #expect(queue.offer(channel: "a", version: 4, payload: Text(""), latestOnly: false) == 1)
        #expect(queue.offer(channel: "a", version: 5, payload: Text(""), latestOnly: false) == 1)
        _ = queue.next()
        // Also after the newer one has gone out.
        #expect(queue.offer(channel: "a", version: 3, payload: Text(""), latestOnly: false) == 1)
        #expect(queue.isEmpty)
        // Another channel's versions are its own.
        #expect(queue.offer(channel: "b", version: 1, payload: Text(""), latestOnly: false) == 0)
    }

    @Test func latestOnlyKeepsOnePerChannel() {
        var queue = PublishQueue(depth: 16)
        _ = queue.offer(channel: "a", version: 1, payload: Text(""), latestOnly: false)
        _ = queue.offer(channel: "a", version: 2, payload: Text(""), latestOnly: false)
        #expect(queue.offer(channel: "a", version: 3, payload: Text(""), latestOnly: true) == 2)
        #expect(queue.offer(channel: "b", version: 1, payload: Text(""), latestOnly: true) == 0)
        #expect(drain(&queue) == ["a@3", "b@1"])
    }

    @Test func collapseKeepsEachChannelsNewest() {
        var queue = PublishQueue(depth: 16)
        for version in 1...4 {
            _ = queue.offer(channel: "a", version: UInt64(version), payload: Text(""), latestOnly: false)
        }
        for version in 1...2 {
            _ = queue.offer(channel: "b", version: UInt64(version), payload: Text(""), latestOnly: false)
        }
        _ = queue.offer(channel: "c", version: 9, payload: Text(""), latestOnly: false)
        #expect(queue.collapse() == 4)
        #expect(queue.count == 3)
        #expect(drain(&queue) == ["a@4", "b@2", "c@9"])
    }

    @Test func aFailedJobWaitsAgainAtTheBackOfTheLine() {
        var queue = PublishQueue(depth: 16)
        _ = queue.offer(channel: "a", version: 1, payload: Text(""), latestOnly: false)
        _ = queue.offer(channel: "b", version: 1, payload: Text(""), latestOnly: false)
        var job = queue.next()!
        job.attempts = 1
        #expect(queue.putBack(job) == 0)
        #expect(queue.count == 2)
        #expect(queue.next()?.channel == "b")
        let retried = queue.next()!
        #expect(retried.channel == "a" && retried.version == 1 && retried.attempts == 1)
        #expect(queue.isEmpty)
    }

    @Test func aFailedJobGivesWayToANewerVersion() {
        var queue = PublishQueue(depth: 16)
        _ = queue.offer(channel: "a", version: 1, payload: Text(""), latestOnly: false)
        let failed = queue.next()!
        // While a@1 is on its way, a@2 comes.
        _ = queue.offer(channel: "a", version: 2, payload: Text(""), latestOnly: false)
        _ = queue.offer(channel: "c", version: 1, payload: Text(""), latestOnly: false)
        #expect(queue.putBack(failed) == 1)
        #expect(drain(&queue) == ["a@2", "c@1"])
    }

    @Test func theLineDoesNotGrowWithUse() {
        var queue = PublishQueue(depth: 2)
        var lastSent: [String: UInt64] = [:]
        for round in 1...10_000 {
            _ = queue.offer(channel: "c\(round % 3)", version: UInt64(round), payload: Text(""), latestOnly: false)
            if round % 2 == 0, let job = queue.next() {
                #expect(job.version > lastSent[job.channel] ?? 0)
                lastSent[job.channel] = job.version
            }
        }
        // Three channels, at most two versions each, and the line's storage stays small.
        #expect(queue.count <= 6)
        #expect(queue.storedLineLength < 100)
        while let job = queue.next() {
            #expect(job.version > lastSent[job.channel] ?? 0)
            lastSent[job.channel] = job.version
        }
        #expect(queue.isEmpty)
        #expect(lastSent == ["c0": 9999, "c1": 10_000, "c2": 9998])
    }
}
