/// One property moving from `from` to `to` over `duration` seconds from `start` (seconds of the
/// server's clock): the `animation` descriptor of `GET /overlay`, which lets a reader draw a slide
/// or a fade smoothly from one snapshot instead of polling at frame rate.
public struct Animation: Codable, Hashable, Sendable {
    /// The property that moves: the overlay's `contentOffset` or `alpha`, the incoming label's
    /// `labelOffset` during a rise, the status bar's `offset` or `alpha`.
    public struct Property: OpenEnum {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let contentOffset: Property = "contentOffset"
        public static let alpha: Property = "alpha"
        public static let offset: Property = "offset"
        public static let labelOffset: Property = "labelOffset"
    }

    /// The timing curve. A curve this client does not know is drawn linearly.
    public struct Curve: OpenEnum {
        public var rawValue: String
        public init(rawValue: String) { self.rawValue = rawValue }

        public static let linear: Curve = "linear"
        /// Core Animation's ease-in-ease-out: the cubic Bézier (0.42, 0) (0.58, 1).
        public static let easeInOut: Curve = "easeInOut"
        /// The `bounce` show style's: three ever smaller bounces before it settles.
        public static let easeOutBounce: Curve = "easeOutBounce"

        /// The animated fraction at `fraction` (clamped to 0…1) of the animation's time.
        public func value(at fraction: Double) -> Double {
            let f = min(max(fraction, 0), 1)
            switch self {
            case .easeInOut: return ServerCurves.easeInOut(f)
            case .easeOutBounce: return ServerCurves.easeOutBounce(f)
            default: return f
            }
        }
    }

    public var property: Property
    public var from: Double
    public var to: Double
    /// When it starts, in seconds of the server's clock.
    public var start: Double
    /// How long it runs, in seconds.
    public var duration: Double
    /// The curve; absent is linear.
    public var curve: Curve?

    public init(property: Property, from: Double, to: Double, start: Double, duration: Double, curve: Curve? = nil) {
        self.property = property
        self.from = from
        self.to = to
        self.start = start
        self.duration = duration
        self.curve = curve
    }

    /// When it ends, in seconds of the server's clock.
    public var end: Double { ServerClock.seconds(endNanoseconds) }

    /// The property's value at `time`: `from` before the start, `to` from the end on.
    ///
    /// The server keeps time in whole nanoseconds, so times are rounded to them first and the
    /// fraction is taken between integers, exactly as the server computes it.
    public func value(at time: Double) -> Double {
        let length = ServerClock.nanoseconds(duration)
        guard length > 0 else { return to }
        let (elapsed, overflow) = ServerClock.nanoseconds(time).subtractingReportingOverflow(
            ServerClock.nanoseconds(start))
        let fraction = overflow ? (time > start ? 1 : 0) : Double(elapsed) / Double(length)
        if fraction >= 1 { return to }
        // A bounce as the server writes it: the distance still to go, to − (to − from)(1 − b).
        if curve == .easeOutBounce { return to - (to - from) * (1 - Curve.easeOutBounce.value(at: fraction)) }
        return from + (to - from) * (curve ?? .linear).value(at: fraction)
    }

    /// Whether it still moves at `time` (it has not reached its end).
    public func isRunning(at time: Double) -> Bool {
        ServerClock.nanoseconds(time) < endNanoseconds
    }

    private var endNanoseconds: Int64 {
        let (sum, overflow) = ServerClock.nanoseconds(start).addingReportingOverflow(ServerClock.nanoseconds(duration))
        return overflow ? (duration > 0 ? .max : .min) : sum
    }
}

/// The server's time is whole nanoseconds; JSON carries it as seconds.
enum ServerClock {
    /// About 292 years, the longest time an Int64 of nanoseconds holds.
    static let maximumSeconds = 9.2e9

    /// `seconds` rounded to the nearest nanosecond, as the server rounds every time it is given.
    static func nanoseconds(_ seconds: Double) -> Int64 {
        guard seconds.isFinite else { return seconds > 0 ? .max : .min }
        let clamped = min(max(seconds, -maximumSeconds), maximumSeconds)
        return Int64((clamped * 1e9).rounded())
    }

    static func seconds(_ nanoseconds: Int64) -> Double { Double(nanoseconds) / 1e9 }

    /// `seconds` as the server would write it back: rounded to a whole nanosecond.
    static func rounded(_ seconds: Double) -> Double { self.seconds(nanoseconds(seconds)) }
}
