import OverlayClientCore

/// The head of an answer from the lines curl hands over: the status line, the fields, the blank
/// line; an interim 1xx head is dropped, and trailers after the body are ignored.
struct HeadReader: Sendable {
    private var head: HTTPResponseHead?
    private(set) var delivered = false

    /// Takes one line (with its line end); answers the head when `line` completes it.
    mutating func take(_ line: String) -> HTTPResponseHead? {
        guard !delivered else { return nil }
        let text = line.trimmingSuffix { $0.isNewline }
        if text.hasPrefix("HTTP/") {
            // `HTTP/1.1 200 OK`, `HTTP/2 200`.
            let fields = text.split(separator: " ", maxSplits: 2)
            head = HTTPResponseHead(status: fields.count > 1 ? Int(fields[1]) ?? 0 : 0)
        } else if text.isEmpty {
            guard let complete = head, !(100..<200).contains(complete.status) else {
                head = nil
                return nil
            }
            delivered = true
            return complete
        } else if let colon = text.firstIndex(of: ":") {
            let value = text[text.index(after: colon)...].trimmingPrefix { $0 == " " || $0 == "\t" }
            head?.add(String(text[..<colon]), String(value.trimmingSuffix { $0 == " " || $0 == "\t" }))
        }
        return nil
    }
}

extension StringProtocol {
    /// This text without the characters at its end that `drop` says to drop.
    fileprivate func trimmingSuffix(while drop: (Character) -> Bool) -> SubSequence {
        var end = endIndex
        while end > startIndex, drop(self[index(before: end)]) { end = index(before: end) }
        return self[startIndex..<end]
    }
}
