import Synchronization

/// Refused credentials and accesses by reason, for `overlayd_auth_failures_total{reason}`. Refusals
/// are rare next to requests: one atomic per reason is enough.
final class AuthFailureCounts: Sendable {
    private let missing = Atomic<Int>(0)
    private let invalid = Atomic<Int>(0)
    private let expired = Atomic<Int>(0)
    private let revoked = Atomic<Int>(0)
    private let forbidden = Atomic<Int>(0)

    func count(_ refusal: AccessRefusal) {
        switch refusal {
        case .missing: missing.add(1, ordering: .relaxed)
        case .invalid: invalid.add(1, ordering: .relaxed)
        case .expired: expired.add(1, ordering: .relaxed)
        case .revoked: revoked.add(1, ordering: .relaxed)
        case .forbidden: forbidden.add(1, ordering: .relaxed)
        }
    }

    /// Every reason with its count, zeros included, in `AccessRefusal.reasons`' order.
    var values: [(reason: String, count: Int)] {
        [
            ("missing", missing.load(ordering: .relaxed)), ("invalid", invalid.load(ordering: .relaxed)),
            ("expired", expired.load(ordering: .relaxed)), ("revoked", revoked.load(ordering: .relaxed)),
            ("forbidden", forbidden.load(ordering: .relaxed)),
        ]
    }
}
