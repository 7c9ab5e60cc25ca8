import Synchronization

/// Streams that are sent the same events (the service makes one group per channel), as a
/// `StreamRegistry` lists them: a handle the application keeps, and how many streams are listed
/// under it.
public final class StreamGroup: Sendable {
    /// Kept by the registry as it lists and unlists, under the lock of the shard it changes.
    let listed = Atomic(0)

    public init() {}

    /// Streams listed under the group now, in every shard: one load. Relaxed: a reader that must
    /// see a listing (a channel deciding whether anyone reads it) reads under a lock that the
    /// lister takes after listing.
    public var count: Int { listed.load(ordering: .relaxed) }
}
