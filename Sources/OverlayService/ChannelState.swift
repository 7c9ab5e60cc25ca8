import MicroHTTP
import OverlayEngine

// The values a `Channel` keeps behind its lock and hands out of it (see Channel.swift).

/// A long-poll parked on a channel until its version moves or its time is up.
struct ChannelWaiter {
    var since: UInt64
    /// Monotonic nanoseconds after which the waiter gets 304.
    var deadline: Int64
    var responder: HTTPResponder

    /// Answers the waiter. The responder is borrowed from the waiter, not retained for the call:
    /// a fan-out answers thousands of them while the pool threads answer them too.
    func answer(_ response: HTTPResponse) {
        Unmanaged.passUnretained(responder)._withUnsafeGuaranteedRef { $0.respond(response) }
    }
}

extension [ChannelWaiter] {
    /// How many answers ahead a fan-out fetches a waiter's responder: far enough for the fetch to
    /// arrive before its answer, near enough for it to still be in the cache.
    static var prefetchDistance: Int { 8 }

    /// Answers every waiter with `response` (they all get the same), emptying the array. Taken
    /// out one by one (`removeLast`), not iterated: iterating retains each, and the array's end
    /// releases them all in a second pass over thousands of objects the pool threads are
    /// answering meanwhile. The responder a few answers ahead is fetched meanwhile (the server's
    /// CPU time per 10,000-reader round went down 0.4–2 %: BENCHMARKS.md).
    mutating func answerAll(_ response: HTTPResponse) {
        // The responder's address is read from the array's memory: taking the reference out would
        // retain it, a write to the cold line the fetch is for.
        let responderOffset = MemoryLayout<ChannelWaiter>.offset(of: \.responder)!
        while !isEmpty {
            let ahead = count - 1 - Self.prefetchDistance
            if ahead >= 0 {
                withUnsafeBytes { bytes in
                    HTTPResponder.prefetch(
                        at: bytes.load(
                            fromByteOffset: ahead * MemoryLayout<ChannelWaiter>.stride + responderOffset,
                            as: UnsafeRawPointer.self))
                }
            }
            removeLast().answer(response)
        }
    }
}

/// What a channel keeps behind its lock.
struct ChannelState {
    var engine: OverlayEngine
    /// The engine deadline the scheduler holds (nil once it fired): only an earlier one is
    /// handed over (see `conclude`).
    var scheduled: Instant?
    var waiters: [ChannelWaiter] = []
    /// The waiter deadline last handed to the scheduler.
    var waitersScheduled: Int64?
    var subscribers = SubscriberList()
    var nextTicket = 0
    /// The store sequence of this channel's latest record.
    var lastSequence: UInt64?
    /// The current version's overlay JSON, cut for reads to fill in (see `OverlayTemplate`).
    var template: OverlayTemplate?
    /// The last `GET /overlay` answer, built once in libmicrohttpd and sent again to reads of
    /// the same version at the same moment (see `ServiceClock.sharesReading`).
    var sharedRead: SharedRead?
    /// Let go by the registry (a channel only readers made, whose readers all left): no
    /// reader may join it any more; one that tries asks the registry again.
    var retired = false
}

/// What a channel access leaves to do once the lock is released.
struct ChannelEffects {
    /// Whether there is a change or an expiry to tell readers of. Most accesses have none, and
    /// looking at `changed` to find that out copies the whole snapshot.
    var tellsReaders = false
    /// The overlay after a change, with the readers to tell.
    var changed: OverlaySnapshot? = nil
    var answered: [ChannelWaiter] = []
    var subscribers: [Subscriber] = []
    /// Waiters whose time is up, with the version they see unchanged.
    var expired: [ChannelWaiter] = []
    var expiredVersion: UInt64 = 0
    /// The store sequence of this access's changes, or else of the channel's latest ones.
    var sequence: UInt64? = nil
}

/// A `GET /overlay` answer kept for the reads that follow it: its version and the instant its
/// moving values were computed at.
struct SharedRead {
    let version: UInt64
    let at: Instant
    let response: HTTPResponse
}
