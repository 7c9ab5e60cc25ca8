/// The versions waiting to be published: per channel at most `depth` of them, oldest first, and
/// the channels that have any in the order they got their first.
///
/// It never grows past `depth` per channel. A new version of a full channel pushes out its oldest
/// waiting one; while the publisher is failing (`latestOnly`), a channel keeps only its newest, so
/// that once the endpoint is back each channel that changed meanwhile sends its current version
/// once, not the history of the outage. Versions of a channel only grow: one that is not newer
/// than the last one offered is dropped (two writes finishing on two threads can offer theirs in
/// either order).
///
/// Pure and single-threaded: `Publisher` holds it under its lock. Offering runs on every write,
/// so it is cheap: not generic (a generic type from another module runs unspecialised there, every
/// array and dictionary operation through witness tables) and a channel's versions are changed in
/// place in its `Slot`, never copied out of the dictionary and back.
// Safe to send: its slots are classes changed in place, but a queue is only reached under its
// publisher's lock (see `Publisher`).
struct PublishQueue: @unchecked Sendable {
    struct Job {
        var channel: String
        var version: UInt64
        var payload: AnyObject
        /// Attempts made so far.
        var attempts = 0
        /// The encoded body, kept for a retry.
        var body: [UInt8]? = nil
    }

    /// One channel: its waiting versions and the newest ever offered.
    final class Slot {
        let channel: String
        var jobs: [Job] = []
        var newest: UInt64?

        init(channel: String) {
            self.channel = channel
        }
    }

    let depth: Int
    /// Versions waiting, all channels together.
    private(set) var count = 0
    private var slots: [String: Slot] = [:]
    /// Channels with waiting versions, each once, in the order they are served.
    private var ready: [Slot] = []
    private var readyStart = 0

    init(depth: Int) {
        precondition(depth >= 1)
        self.depth = depth
    }

    var isEmpty: Bool { count == 0 }

    /// Queues a version; returns how many waiting versions it dropped or, if it is not newer than
    /// the last one offered for its channel, 1 for itself.
    mutating func offer(channel: String, version: UInt64, payload: AnyObject, latestOnly: Bool) -> Int {
        let slot: Slot
        if let existing = slots[channel] {
            slot = existing
        } else {
            slot = Slot(channel: channel)
            slots[channel] = slot
        }
        if let newest = slot.newest, version <= newest { return 1 }
        slot.newest = version
        if slot.jobs.isEmpty { ready.append(slot) }
        let dropped = max(0, slot.jobs.count + 1 - (latestOnly ? 1 : depth))
        if dropped > 0 { slot.jobs.removeFirst(dropped) }
        slot.jobs.append(Job(channel: channel, version: version, payload: payload))
        count += 1 - dropped
        return dropped
    }

    /// The oldest waiting version of the channel whose turn it is; its channel goes to the back
    /// of the line if it has more.
    mutating func next() -> Job? {
        guard readyStart < ready.count else { return nil }
        let slot = ready[readyStart]
        readyStart += 1
        let job = slot.jobs.removeFirst()
        count -= 1
        if !slot.jobs.isEmpty { ready.append(slot) }
        compact()
        return job
    }

    /// A job whose attempt failed waits again, at the back of the line (so that an endpoint that
    /// fails one channel's messages does not hold up the others), unless a newer version of its
    /// channel waits already, which then goes instead. Returns 1 if the job was dropped for a
    /// newer one, else 0.
    mutating func putBack(_ job: Job) -> Int {
        guard let slot = slots[job.channel] else { return 1 }
        if !slot.jobs.isEmpty { return 1 }
        slot.jobs = [job]
        ready.append(slot)
        count += 1
        return 0
    }

    /// Keeps only each channel's newest waiting version; returns how many it dropped.
    mutating func collapse() -> Int {
        var dropped = 0
        for slot in slots.values where slot.jobs.count > 1 {
            dropped += slot.jobs.count - 1
            slot.jobs.removeFirst(slot.jobs.count - 1)
        }
        count -= dropped
        return dropped
    }

    /// The line's storage, served entries included (for tests: it must stay bounded).
    var storedLineLength: Int { ready.count }

    /// Drops the served part of the line once it is the larger half, so that it never grows.
    private mutating func compact() {
        if readyStart > 32 && readyStart * 2 > ready.count {
            ready.removeFirst(readyStart)
            readyStart = 0
        }
    }
}
