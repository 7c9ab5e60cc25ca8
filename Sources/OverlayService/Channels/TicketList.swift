/// Values listed under tickets, kept in one dense array: a channel's change hands that array to
/// the fan-out as it is (a reference to its storage), where copying a dictionary's values would
/// retain each of thousands of streams under the channel's lock. Each ticket's place is kept for
/// its removal, which moves the last value into the gap.
struct TicketList<Element> {
    /// The values, in no particular order.
    private(set) var all: [Element] = []
    /// The ticket of each value in `all`, at the same place.
    private var tickets: [Int] = []
    /// Where each ticket's value is in `all`.
    private var places: [Int: Int] = [:]

    var count: Int { all.count }
    var isEmpty: Bool { all.isEmpty }

    mutating func add(_ value: Element, ticket: Int) {
        precondition(places[ticket] == nil, "ticket \(ticket) is listed already")
        places[ticket] = all.count
        all.append(value)
        tickets.append(ticket)
    }

    /// Takes the value of `ticket` off the list; nothing if it is not on it.
    mutating func remove(ticket: Int) {
        guard let place = places.removeValue(forKey: ticket) else { return }
        let last = all.count - 1
        if place != last {
            all.swapAt(place, last)
            tickets.swapAt(place, last)
            places[tickets[place]] = place
        }
        all.removeLast()
        tickets.removeLast()
    }
}

extension TicketList: Sendable where Element: Sendable {}
