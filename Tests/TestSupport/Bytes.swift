/// Searches in received bytes.
public enum Bytes {
    public static let crlf: [UInt8] = [13, 10]
    public static let headEnd: [UInt8] = [13, 10, 13, 10]

    /// Where `pattern` first starts in `bytes` at or after `start`, or nil.
    public static func index(of pattern: [UInt8], in bytes: [UInt8], from start: Int = 0) -> Int? {
        guard !pattern.isEmpty, bytes.count >= pattern.count + start else { return nil }
        var index = start
        while index <= bytes.count - pattern.count {
            if bytes[index] == pattern[0] && bytes[index..<(index + pattern.count)].elementsEqual(pattern) {
                return index
            }
            index += 1
        }
        return nil
    }
}
