import MicroHTTP
import OverlayEngine

// `GET /overlay` between deadlines: a look at the engine under the lock, the version's template
// filled in outside it, and the answer kept for the reads of the same version that follow.

/// A `GET /overlay` answer kept for the reads that follow it: its version and the instant its
/// moving values were computed at.
struct SharedRead {
    let version: UInt64
    let at: Instant
    let response: HTTPResponse
}

extension ChannelStateMachine {
    /// How a `GET /overlay` is answered.
    enum OverlayRead {
        /// 304: the version is the one the reader has (with the version's template, whose
        /// prepared 304 is shared, when there is one).
        case notModified(OverlayTemplate?)
        /// An answer built moments ago for the same version, sent again.
        case shared(HTTPResponse)
        /// The version's template, to be filled in with these values outside the lock.
        case fill(OverlayTemplate, MovingValues, at: Instant)
        /// A deadline has passed: the read must be an event (`read`), which reaches it.
        case deadlinePassed
    }

    /// Most reads fall between deadlines: nothing can change, so the engine is only looked at
    /// (no advance, no record, no waiter to wake) and the version's template, encoded once per
    /// version, is filled in.
    mutating func readOverlay(unlessVersion: UInt64?, now: Instant) -> OverlayRead {
        if let deadline = engine.nextDeadline, deadline <= now { return .deadlinePassed }
        if engine.version == unlessVersion {
            return .notModified(template?.version == unlessVersion ? template : nil)
        }
        if let shared = sharedRead, shared.version == engine.version,
            ServiceClock.sharesReading(setting.clock, shared.at, with: now)
        {
            return .shared(shared.response)
        }
        if template?.version != engine.version {
            template = setting.encoder.template(engine.overlay(at: now))
        }
        return .fill(template!, engine.movingValues(at: now), at: now)
    }

    /// Keeps an answer filled in outside the lock for the reads that follow, unless the version
    /// moved on or a newer answer got there first.
    mutating func keep(_ read: SharedRead) {
        guard engine.version == read.version else { return }
        if let kept = sharedRead, kept.version == read.version, kept.at >= read.at { return }
        sharedRead = read
    }
}

extension ChannelStateMachine.OverlayRead: Sendable where Reader: Sendable, Stream: Sendable {}
