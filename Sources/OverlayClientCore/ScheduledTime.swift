#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif

/// When a scheduled message joins the queue (`at`, MODEL §11), in the terms of the server's
/// clock: a real clock takes a wall-clock instant, a manual clock a number of its own seconds.
/// The server's `scheduledFor` answers it on the server's clock, whose zero is its start.
public enum ScheduledTime: Hashable, Sendable {
    /// A wall-clock instant, for a server on the real clock (sent as Unix seconds).
    case date(Date)
    /// Seconds on a manual clock, as `clock()` answers them.
    case clock(Double)

    /// The number the server reads.
    var seconds: Double {
        switch self {
        case .date(let date): date.timeIntervalSince1970
        case .clock(let seconds): seconds
        }
    }
}
