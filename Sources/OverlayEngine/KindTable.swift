/// A value, or none, for each message kind: what `[MessageKind: Value]` says, read without hashing.
/// The engine asks for a kind's duration several times per event; a dictionary hashes the kind
/// each time, this reads an array slot.
public struct KindTable<Value: Hashable & Sendable>: Hashable, Sendable, ExpressibleByDictionaryLiteral {
    private var slots: [Value?]

    public init() {
        slots = Array(repeating: nil, count: MessageKind.allCases.count)
    }

    public init(dictionaryLiteral elements: (MessageKind, Value)...) {
        self.init()
        for (kind, value) in elements {
            precondition(self[kind] == nil, "\(kind) is given twice")
            self[kind] = value
        }
    }

    public subscript(kind: MessageKind) -> Value? {
        get { slots[KindTable.slot(kind)] }
        set { slots[KindTable.slot(kind)] = newValue }
    }

    /// The kinds that have a value, in the order `MessageKind` declares them.
    public var kinds: [MessageKind] { MessageKind.allCases.filter { self[$0] != nil } }

    private static func slot(_ kind: MessageKind) -> Int {
        switch kind {
        case .sending: 0
        case .sent: 1
        case .failed: 2
        case .progress: 3
        case .info: 4
        }
    }
}

extension KindTable: CustomStringConvertible {
    public var description: String {
        "[" + kinds.map { "\($0): \(self[$0]!)" }.joined(separator: ", ") + "]"
    }
}
