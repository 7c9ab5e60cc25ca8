import Testing

@testable import OverlayService

/// The dense list a channel keeps its event streams in.
@Suite("Ticket list")
struct TicketListTests {
    /// Removal moves the last value into the gap, and every ticket still finds its own value.
    @Test func removalKeepsEveryTicketsPlace() {
        var list = TicketList<String>()
        for (ticket, value) in ["a", "b", "c", "d"].enumerated() { list.add(value, ticket: ticket) }
        list.remove(ticket: 1)
        #expect(list.all == ["a", "d", "c"])
        list.remove(ticket: 3)
        #expect(list.all == ["a", "c"])
        list.remove(ticket: 2)
        list.remove(ticket: 0)
        #expect(list.isEmpty)
        #expect(list.count == 0)
    }

    /// A ticket that is not listed (removed already, or never added) changes nothing.
    @Test func removingAnUnknownTicketChangesNothing() {
        var list = TicketList<String>()
        list.add("a", ticket: 7)
        list.add("b", ticket: 9)
        list.remove(ticket: 8)
        list.remove(ticket: 7)
        list.remove(ticket: 7)
        #expect(list.all == ["b"])
        list.add("c", ticket: 7)
        list.remove(ticket: 9)
        #expect(list.all == ["c"])
    }

    /// Many adds and removals in a shuffled order leave exactly the values still listed.
    @Test func agreesWithADictionary() {
        var list = TicketList<Int>()
        var expected: [Int: Int] = [:]
        var generator = SystemRandomNumberGenerator()
        for ticket in 0..<500 {
            list.add(ticket * 10, ticket: ticket)
            expected[ticket] = ticket * 10
            if ticket % 3 == 0, let victim = expected.keys.randomElement(using: &generator) {
                list.remove(ticket: victim)
                expected[victim] = nil
            }
        }
        #expect(list.all.sorted() == expected.values.sorted())
        #expect(list.count == expected.count)
    }

    /// A fan-out keeps the array it was handed while the channel's list changes: the change copies
    /// the list's storage, never the array being sent to.
    @Test func aHandedOutArrayStaysAsItWas() {
        var list = TicketList<String>()
        list.add("a", ticket: 0)
        list.add("b", ticket: 1)
        let handedOut = list.all
        list.remove(ticket: 0)
        list.add("c", ticket: 2)
        #expect(handedOut == ["a", "b"])
        #expect(list.all.sorted() == ["b", "c"])
    }
}
