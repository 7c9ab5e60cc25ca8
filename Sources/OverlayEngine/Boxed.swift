/// A value kept behind one pointer: the rarely set fields of a message or an input. A message is
/// copied several times per write, so fields most messages leave empty cost one nil pointer there
/// instead of their full size; setting one allocates a new box (the box itself never changes).
final class Boxed<Value: Hashable & Sendable>: Hashable, Sendable {
    let value: Value

    private init(_ value: Value) {
        self.value = value
    }

    /// Nil for the empty value, without allocating.
    static func make(_ value: Value, empty: Value) -> Boxed? {
        value == empty ? nil : Boxed(value)
    }

    static func == (lhs: Boxed, rhs: Boxed) -> Bool { lhs === rhs || lhs.value == rhs.value }
    func hash(into hasher: inout Hasher) { hasher.combine(value) }
}
