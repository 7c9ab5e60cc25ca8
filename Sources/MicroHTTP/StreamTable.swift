/// One thread shard's event streams, by group: what `StreamRegistry` keeps under each shard's
/// lock.
///
/// A group's streams are one dense array, so that a fan-out takes it as it is (one retain of its
/// storage, under the lock) and walks it after the lock; a removal moves the last stream into the
/// gap, and `places` keeps where each stream is for that. Listing and unlisting happen once per
/// stream (its subscription and its connection's end), so their hashing is off the fan-out.
struct StreamTable {
    /// One group's streams, or those of no group.
    private struct List {
        /// Retained while it lists streams here, so that its identifier names no other group.
        let group: StreamGroup?
        var streams: [HTTPStream] = []
    }

    /// Where a stream is: its group's list and its index there.
    private struct Place {
        var group: ObjectIdentifier?
        var index: Int
    }

    /// By group (nil: the streams of no group).
    private var lists: [ObjectIdentifier?: List] = [:]
    /// By stream: each is retained in its list, so its identifier is its own while listed.
    private var places: [ObjectIdentifier: Place] = [:]

    /// Streams listed here.
    var count: Int { places.count }

    /// Lists `stream` under `group` (nil: none). One listed already stays where it is, unless
    /// `moving`: then it moves under `group`.
    mutating func list(_ stream: HTTPStream, in group: StreamGroup?, moving: Bool) {
        let id = ObjectIdentifier(stream)
        let key = group.map(ObjectIdentifier.init)
        if let place = places[id] {
            guard moving, place.group != key else { return }
            take(from: place)
        }
        places[id] = Place(group: key, index: lists[key]?.streams.count ?? 0)
        lists[key, default: List(group: group)].streams.append(stream)
        group?.listed.add(1, ordering: .relaxed)
    }

    /// Takes `stream` off the table; nothing if it is not on it.
    mutating func remove(_ stream: HTTPStream) {
        guard let place = places.removeValue(forKey: ObjectIdentifier(stream)) else { return }
        take(from: place)
    }

    /// The streams listed under `group`: the array itself, not a copy.
    func streams(in group: StreamGroup) -> [HTTPStream] {
        lists[ObjectIdentifier(group)]?.streams ?? []
    }

    /// Every stream listed here.
    var all: [HTTPStream] { lists.values.flatMap(\.streams) }

    /// Takes the stream at `place` out of its list, the last one moving into its place; the
    /// stream's own entry in `places` is the caller's.
    private mutating func take(from place: Place) {
        // Taken out of the dictionary and put back: one lookup, and the array stays unique.
        var list = lists.removeValue(forKey: place.group)!
        let last = list.streams.removeLast()
        if place.index < list.streams.count {
            list.streams[place.index] = last
            places[ObjectIdentifier(last)]!.index = place.index
        }
        list.group?.listed.subtract(1, ordering: .relaxed)
        if !list.streams.isEmpty { lists[place.group] = list }
    }
}
