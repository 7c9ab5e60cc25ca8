import MicroHTTP
import OverlayEngine

/// `/clock`: the service's time, and in manual-clock mode the way to move it.
struct ClockHandlers: Sendable {
    let clock: ServiceClock
    let channels: ChannelRegistry

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
        let moved = clock.moveManual { now in
            if let advance { return now + .seconds(advance) }
            let to = Instant.seconds(target ?? 0)
            return to >= now ? to : nil
        }
        guard let moved else { throw .invalidField("to", "cannot move the clock back") }
        for channel in channels.all { channel.advanceToNow() }
        return clockResponse(moved)
    }

    private func clockResponse(_ now: Instant) -> HTTPResponse {
        HTTPResponse.json(200) {
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
