import MicroHTTP
import OverlayEngine

/// What the channel keeps for `GET /overlay` beside its machine, under the same lock: the current
/// version's template with its headers and prepared 304, and the last answer, sent again to reads
/// of the same version at the same moment. The machine decides only whether the reader's version
/// is current or a deadline has passed; the bytes are this cache's.
struct OverlayReads {
    /// A version's template with what every answer of that version carries.
    final class Kept: Sendable {
        let template: OverlayTemplate
        let headers: [Header]
        /// Built once and handed to libmicrohttpd as it is for every conditional GET that matches
        /// (as a C server shares one response object).
        let notModified: HTTPResponse

        init(_ template: OverlayTemplate) {
            self.template = template
            let validator = OverlayEncoder.versionHeaders(template.version)
            headers = [Header.json] + validator
            var notModified = HTTPResponse(status: 304, headers: validator)
            notModified.prepare()
            self.notModified = notModified
        }

        func response(_ values: MovingValues) -> HTTPResponse {
            HTTPResponse(status: 200, headers: headers, body: template.render(values))
        }
    }

    /// An answer kept for the reads that follow it: its version and the instant its moving values
    /// were computed at.
    struct Shared {
        let version: UInt64
        let at: Instant
        let response: HTTPResponse
    }

    /// How a `GET /overlay` is answered.
    enum Read {
        /// 304: the version is the one the reader has (with the version's kept template, whose
        /// prepared 304 is shared, when there is one).
        case notModified(version: UInt64, Kept?)
        /// An answer built moments ago for the same version, sent again.
        case shared(HTTPResponse)
        /// The version's template, to be filled in with these values outside the lock.
        case fill(Kept, MovingValues, at: Instant)
    }

    private(set) var kept: Kept?
    private var shared: Shared?

    /// The answer kept for a read of `version` at `now`, if one was made at the same moment.
    func sharedAnswer(version: UInt64, now: Instant, clock: ClockMode) -> HTTPResponse? {
        guard let shared, shared.version == version, ServiceClock.sharesReading(clock, shared.at, with: now) else {
            return nil
        }
        return shared.response
    }

    /// Keeps `template`, the current version's, for the reads that follow.
    mutating func keep(_ template: OverlayTemplate) -> Kept {
        let kept = Kept(template)
        self.kept = kept
        return kept
    }

    /// Keeps an answer filled in outside the lock for the reads that follow, unless the version
    /// moved on or a newer answer got there first.
    mutating func keep(_ read: Shared, current version: UInt64) {
        guard version == read.version else { return }
        if let shared, shared.version == read.version, shared.at >= read.at { return }
        shared = read
    }
}

extension OverlayReads.Read: Sendable {}
