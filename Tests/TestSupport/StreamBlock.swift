/// One block of an event stream: the lines between two blank lines, without the blank line.
public struct StreamBlock: Sendable, CustomStringConvertible {
    /// The block exactly as sent, lines joined by `\n`.
    public var raw: String

    public init(raw: String) {
        self.raw = raw
    }

    /// The value of the first `name:` line (one space after the colon dropped, as EventSource does).
    public func field(_ name: String) -> String? {
        values(name).first
    }

    public var event: String? { field("event") }
    public var id: String? { field("id") }
    /// Every `data:` line, joined by `\n` as EventSource joins them.
    public var data: String? {
        let lines = values("data")
        return lines.isEmpty ? nil : lines.joined(separator: "\n")
    }
    /// The `id:` as a number (overlayd's ids are versions).
    public var version: Int? { id.flatMap { Int($0) } }
    /// A comment block (`: heartbeat`).
    public var isComment: Bool { raw.hasPrefix(":") }
    /// What EventSource dispatches: a block with data or an event name.
    public var isEvent: Bool { !isComment && (event != nil || data != nil) }

    public var description: String { raw.count > 120 ? String(raw.prefix(120)) + "…" : raw }

    private func values(_ name: String) -> [String] {
        raw.split(separator: "\n", omittingEmptySubsequences: false).compactMap { line in
            guard line.hasPrefix(name + ":") else { return nil }
            let value = line.dropFirst(name.count + 1)
            return String(value.first == " " ? value.dropFirst() : value)
        }
    }
}
