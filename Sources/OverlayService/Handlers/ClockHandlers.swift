import MicroHTTP
import OverlayEngine

/// `/clock`: the service's time, and in manual-clock mode the way to move it.
struct ClockHandlers: Sendable {
    let clock: ServiceClock
    let channels: ChannelRegistry
    /// How far past the clock's time a deadline can fall: the longest display (or the stickiness
    /// limit) and every animation. The clock never moves so far that such a deadline could not
    /// be represented: past that, every message would end the moment it is posted.
    let headroom: Interval

    init(clock: ServiceClock, channels: ChannelRegistry, engine: EngineConfiguration) {
        self.clock = clock
        self.channels = channels
        let longest = max(MessageRules.maximumDuration, engine.maxStickyDuration, engine.completeDuration)
        headroom = Interval(
            nanoseconds: longest.nanoseconds + engine.showDuration.nanoseconds + engine.hideDuration.nanoseconds
                + engine.rotationDuration.nanoseconds + engine.statusBar.animationDuration.nanoseconds)
    }

    func get() -> HTTPResponse {
        clockResponse(clock.now())
    }

    func post(_ request: HTTPRequest) throws(APIError) -> HTTPResponse {
        guard clock.mode == .manual else {
            throw APIError(
                status: 409, code: "clock_not_manual",
                message: "the clock is real; start overlayd with --clock manual to move it by hand")
        }
        var move = ClockMove()
        try FieldReader(request, ClockMove.fields).read(ClockMove.fields, into: &move)
        let (advance, target) = (move.advance, move.to)
        let limit = 1e9
        switch (advance, target) {
        case (nil, nil): throw .invalidField("advance", "is required (or give to)")
        case (.some, .some): throw .badRequest("give advance or to, not both", field: "to")
        case (let seconds?, nil) where !(0...limit).contains(seconds):
            throw .invalidField("advance", "must be between 0 and \(Int(limit)) seconds")
        case (nil, let seconds?) where !(0...limit).contains(seconds):
            throw .invalidField("to", "must be between 0 and \(Int(limit)) seconds")
        default: break
        }
        // The latest time the clock may reach: a deadline `headroom` past it still fits.
        let latest = Instant(nanoseconds: Int64.max - headroom.nanoseconds)
        var refusal: APIError?
        let moved = clock.moveManual { now in
            let next = advance.map { now + .seconds($0) } ?? Instant.seconds(target ?? 0)
            if next < now {
                refusal = .invalidField("to", "cannot move the clock back")
            } else if next > latest || (advance != nil && next.nanoseconds == Int64.max) {
                let room = Int((latest.seconds - now.seconds).rounded(.down))
                refusal = .invalidField(
                    advance != nil ? "advance" : "to",
                    "would take the clock past what it can count with room for a message's deadlines "
                        + "(at most \(max(0, room)) seconds more)")
            }
            return refusal == nil ? next : nil
        }
        if let refusal { throw refusal }
        guard let moved else { throw .invalidField("to", "cannot move the clock back") }
        for channel in channels.all { channel.advanceToNow() }
        return clockResponse(moved)
    }

    private func clockResponse(_ now: Instant) -> HTTPResponse {
        HTTPResponse.json(200, headers: [.json, .noStore]) {
            $0.beginObject()
            $0.key("now")
            $0.number(now.seconds)
            $0.key("mode")
            $0.string(clock.mode.rawValue)
            $0.endObject()
        }
    }
}

/// What `POST /clock` asks: an advance, or a time to move to.
struct ClockMove {
    var advance: Double?
    var to: Double?

    static let fields = FieldSet<ClockMove>(
        text: "advance",
        [
            FieldRule(Field.number("advance")) { $0.advance = $1 }, FieldRule(Field.number("to")) { $0.to = $1 },
        ])
}
