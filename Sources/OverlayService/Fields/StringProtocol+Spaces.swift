extension StringProtocol {
    /// The text without surrounding spaces, tabs and line breaks. CR LF is one Character in Swift,
    /// equal to neither "\r" nor "\n"; its `asciiValue` is that of "\n", so it counts too
    /// (`curl -d $'0.5\r\n'` is a number). Read by ASCII value: comparing Characters compares
    /// strings, which cost more than the rest of a short query value's reading.
    func trimmingSpaces() -> String {
        let isSpaceByte: (UInt8) -> Bool = { $0 == 0x20 || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }
        let isSpace: (Character) -> Bool = { $0.asciiValue.map(isSpaceByte) ?? false }
        // Most values have nothing to trim: their first and last bytes say so. (A Character that
        // is white space starts and ends with a white-space byte.)
        let untrimmed = utf8.withContiguousStorageIfAvailable { bytes in
            guard let head = bytes.first, let tail = bytes.last else { return false }
            return !isSpaceByte(head) && !isSpaceByte(tail)
        }
        if untrimmed == true { return String(self) }
        guard let first = firstIndex(where: { !isSpace($0) }), let last = lastIndex(where: { !isSpace($0) }) else {
            return ""
        }
        return String(self[first...last])
    }
}
