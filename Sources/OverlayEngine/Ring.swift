/// A double-ended queue on a ring buffer: appending, prepending and removing the first element
/// take constant time, where an Array moves every element (and every element of a message holds
/// strings to retain and release). The history is a ring.
public struct Ring<Element>: RandomAccessCollection, MutableCollection {
    private var storage: [Element?] = []
    /// The storage index of the first element.
    private var head = 0
    public private(set) var count = 0

    public init() {}

    public init<S: Sequence>(_ elements: S) where S.Element == Element {
        storage = elements.map { $0 }
        count = storage.count
    }

    public var startIndex: Int { 0 }
    public var endIndex: Int { count }

    private func slot(_ position: Int) -> Int {
        let index = head + position
        return index < storage.count ? index : index - storage.count
    }

    public subscript(position: Int) -> Element {
        get {
            precondition(position >= 0 && position < count, "Ring index out of range")
            return storage[slot(position)]!
        }
        set {
            precondition(position >= 0 && position < count, "Ring index out of range")
            storage[slot(position)] = newValue
        }
    }

    public mutating func append(_ element: Element) {
        growIfFull()
        storage[slot(count)] = element
        count += 1
    }

    public mutating func prepend(_ element: Element) {
        growIfFull()
        head = head == 0 ? storage.count - 1 : head - 1
        storage[head] = element
        count += 1
    }

    @discardableResult
    public mutating func removeFirst() -> Element {
        precondition(count > 0, "removeFirst from an empty Ring")
        let first = storage[head].take()!
        head = head + 1 == storage.count ? 0 : head + 1
        count -= 1
        return first
    }

    private mutating func growIfFull() {
        guard count == storage.count else { return }
        var grown: [Element?] = []
        grown.reserveCapacity(Swift.max(8, storage.count * 2))
        for position in 0..<count { grown.append(storage[slot(position)]) }
        grown.append(contentsOf: repeatElement(nil, count: grown.capacity - count))
        storage = grown
        head = 0
    }
}

extension Ring: Equatable where Element: Equatable {
    public static func == (lhs: Ring, rhs: Ring) -> Bool { lhs.elementsEqual(rhs) }
}

extension Ring: Hashable where Element: Hashable {
    public func hash(into hasher: inout Hasher) {
        hasher.combine(count)
        for element in self { hasher.combine(element) }
    }
}

extension Ring: Sendable where Element: Sendable {}
