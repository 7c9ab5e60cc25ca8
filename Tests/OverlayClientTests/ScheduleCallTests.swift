import Foundation
import OverlayClient
import TestSupport
import Testing

/// `delay`, `at`, `expires` and `priority` through `OverlayClient` against a real manual-clock
/// overlayd (MODEL §11): what the server answers decodes, the scheduled listing and count follow
/// the clock, and every value the server refuses comes back as its refusal, changing nothing.
@Suite("OverlayClient: scheduled, expiring and prioritised messages")
struct ScheduleCallTests {
    let server: ServerProcess

    init() async throws {
        server = try await ServerProcess.start(["--clock", "manual", "--ephemeral"])
    }

    /// A delayed message waits as `scheduled`, counted in `scheduled` and listed apart, then
    /// shows at its time; its `scheduledFor` stays and its expiry never applied.
    @Test(arguments: Network.allCases) func delayedMessageWaitsThenShows(network: Network) async throws {
        let client = network.client(server.url)
        let posted = try await client.post("Stand-up", delay: 120, expires: 30, priority: .high)
        #expect(posted.state == .scheduled)
        #expect(!posted.state.hasEnded)
        #expect(posted.scheduledFor == 120)
        #expect(posted.expires == 30)
        #expect(posted.expiresAt == nil)
        #expect(posted.priority == .high)
        #expect(try await client.messages().isEmpty)
        #expect(try await client.messages(.scheduled) == [posted])
        let waiting = try await client.overlay()
        #expect(waiting.scheduled == 1)
        #expect(waiting.queued == 0)
        #expect(waiting.phase == .hidden)

        #expect(try await client.advanceClock(by: 119.5) == 119.5)
        #expect(try await client.overlay().scheduled == 1)
        try await client.advanceClock(by: 0.5)
        let shown = try await client.overlay()
        #expect(shown.phase == .showing)
        #expect(shown.label?.text == "Stand-up")
        #expect(shown.scheduled == 0)
        let message = try await client.message(posted.id)
        #expect(message.state == .showing)
        #expect(message.scheduledFor == 120)
        #expect(message.expiresAt == nil)
        #expect(try await client.messages(.scheduled).isEmpty)
    }

    /// `at` on the manual clock; a PATCH moves a scheduled message's time or joins it now, and
    /// changes its other fields in place; a new time for any other message is 409.
    @Test(arguments: Network.allCases) func atAndNewTimes(network: Network) async throws {
        let client = network.client(server.url)
        let shown = try await client.post("shown", kind: .sending)
        let later = try await client.post("later", at: .clock(30))
        #expect(later.state == .scheduled)
        #expect(later.scheduledFor == 30)
        try await client.advanceClock(by: 5)
        #expect(try await client.patch(later.id, delay: 10).scheduledFor == 15)
        let changed = try await client.patch(later.id, text: "later, urgent", priority: .urgent)
        #expect(changed.state == .scheduled)
        #expect(changed.scheduledFor == 15)
        #expect(changed.priority == .max)
        for (field, patch) in [
            ("delay", { try await client.patch(shown.id, delay: 5) }),
            ("at", { try await client.patch(shown.id, at: .clock(40)) }),
        ] as [(String, () async throws -> Message)] {
            let error = await #expect(throws: OverlayClientError.self) { try await patch() }
            #expect(error?.status == 409)
            #expect(error?.code == "not_scheduled")
            guard case .refused(let refusal)? = error else { continue }
            #expect(refusal.field == field)
        }
        let joined = try await client.patch(later.id, at: .clock(5))
        #expect(joined.state == .queued)
        let overlay = try await client.overlay()
        #expect(overlay.queued == 1)
        #expect(overlay.scheduled == 0)
        #expect(try await client.messages().map(\.text) == ["shown", "later, urgent"])
    }

    /// The queue by priority, highest first: a failed message (its kind's 4) passes an earlier
    /// info; `expires` ends one still waiting at its instant.
    @Test(arguments: Network.allCases) func priorityAndExpiry(network: Network) async throws {
        let client = network.client(server.url)
        _ = try await client.post("upload", kind: .sending)
        let info = try await client.post("info", expires: 5)
        #expect(info.expiresAt == 5)
        #expect(info.priority == .default)
        _ = try await client.post("failed", kind: .failed)
        _ = try await client.post("min", priority: .min)
        let queue = try await client.messages()
        #expect(queue.map(\.text) == ["upload", "failed", "info", "min"])
        #expect(queue.map(\.priority) == [.default, .high, .default, .min])
        try await client.advanceClock(by: 5)
        let expired = try await client.message(info.id)
        #expect(expired.state == .expired)
        #expect(expired.state.hasEnded)
        #expect(expired.endedAt == 5)
        #expect(try await client.overlay().queued == 2)
    }

    /// Values the server refuses, each with its status and field: the client sends them as
    /// given rather than guessing the server's bounds.
    static let refusals:
        [(name: String, status: Int, field: String, post: @Sendable (OverlayClient) async throws -> Message)] =
            [
                ("delay 0", 422, "delay", { try await $0.post("x", delay: 0) }),
                ("delay negative", 422, "delay", { try await $0.post("x", delay: -5) }),
                ("delay past 7 days", 422, "delay", { try await $0.post("x", delay: 604_800.5) }),
                ("delay and at", 400, "at", { try await $0.post("x", delay: 5, at: .clock(9)) }),
                ("at past 7 days", 422, "at", { try await $0.post("x", at: .clock(604_802)) }),
                // A manual clock reads a date's Unix seconds as its own: decades ahead.
                ("a date on a manual clock", 422, "at", { try await $0.post("x", at: .date(Date())) }),
                ("expires 0", 422, "expires", { try await $0.post("x", expires: 0) }),
                ("expires past 7 days", 422, "expires", { try await $0.post("x", expires: 604_801) }),
                ("priority 0", 422, "priority", { try await $0.post("x", priority: 0) }),
                ("priority 6", 422, "priority", { try await $0.post("x", priority: 6) }),
                ("patch priority -1", 422, "priority", { try await $0.patch(1, priority: -1) }),
                ("patch expires -1", 422, "expires", { try await $0.patch(1, expires: -1) }),
            ]

    @Test(arguments: ScheduleCallTests.refusals.map(\.name), Network.allCases)
    func refusal(_ name: String, network: Network) async throws {
        let bad = try #require(Self.refusals.first { $0.name == name })
        let client = network.client(server.url)
        let scheduled = try await client.post("waiting", delay: 60)
        #expect(scheduled.id == 1)
        let error = await #expect(throws: OverlayClientError.self) { try await bad.post(client) }
        guard case .refused(let refusal)? = error else {
            Issue.record("not a refusal: \(String(describing: error))")
            return
        }
        #expect(refusal.status == bad.status)
        #expect(refusal.code == (bad.status == 400 ? "bad_request" : "invalid_field"))
        #expect(refusal.field == bad.field)
        #expect(refusal.message.contains(bad.field))
        // Nothing changed: the one scheduled message as it was, nothing queued.
        #expect(try await client.messages().isEmpty)
        #expect(try await client.messages(.scheduled) == [scheduled])
        #expect(try await client.overlay().scheduled == 1)
    }

    /// One more than `maxScheduled` is 503 `schedule_full`, with `Retry-After` the seconds until
    /// the first is due; a message posted for now still goes.
    @Test func scheduleFull() async throws {
        let directory = try TemporaryDirectory()
        let config = try directory.write("config.json", #"{"maxScheduled": 1}"#)
        let full = try await ServerProcess.start(["--config", config, "--clock", "manual", "--ephemeral"])
        let client = OverlayClient(url: full.url)
        let first = try await client.post("a", delay: 7.5)
        let error = await #expect(throws: OverlayClientError.self) { try await client.post("b", delay: 1) }
        guard case .refused(let refusal)? = error else {
            Issue.record("not a refusal: \(String(describing: error))")
            return
        }
        #expect(refusal.status == 503)
        #expect(refusal.code == "schedule_full")
        #expect(refusal.retryAfter == 8)
        #expect(try await client.messages(.scheduled) == [first])
        #expect(try await client.post("c").state == .showing)
    }

    /// `messages(.scheduled)` reads every page, in the order the messages are due (here the
    /// reverse of their ids), past the server's 1,000 a page.
    @Test func scheduledListingReadsEveryPage() async throws {
        let directory = try TemporaryDirectory()
        let config = try directory.write("config.json", #"{"maxScheduled": 1500, "limits": {"writesPerSecond": 0}}"#)
        let big = try await ServerProcess.start(["--config", config, "--clock", "manual", "--ephemeral"])
        let client = OverlayClient(url: big.url, channel: "later")
        var posted: [Int] = []
        for index in 0..<1201 { posted.append(try await client.post("m \(index)", delay: Double(2000 - index)).id) }
        let list = try await client.messages(.scheduled)
        #expect(list.map(\.id) == posted.reversed())
        #expect(try await client.messages().isEmpty)
    }

    /// With the real clock `at` is a wall-clock date: an hour ahead is scheduled about an hour
    /// after it was posted on the server's clock (whose zero is its start); a date passed is
    /// no delay at all.
    @Test(arguments: Network.allCases) func realClockDate(network: Network) async throws {
        let real = try await ServerProcess.start(["--clock", "real", "--ephemeral"])
        let client = network.client(real.url)
        let later = try await client.post("in an hour", at: .date(Date().addingTimeInterval(3600)))
        #expect(later.state == .scheduled)
        let ahead = try #require(later.scheduledFor) - (try #require(later.postedAt))
        // However slow the machine, the wait is the hour less what the request took.
        #expect(ahead > 3300 && ahead <= 3600, "\(ahead)")
        let past = try await client.post("now", at: .date(Date(timeIntervalSince1970: 1_000_000_000)))
        #expect(past.state == .showing)
        #expect(past.scheduledFor == nil)
    }
}
