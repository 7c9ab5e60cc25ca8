/// The syntax of the names clients give things: channels, device profiles and view controllers.
/// 1–64 of `A-Z a-z 0-9 . _ -`, like ntfy's topics: safe in a URL path, a log line and a file
/// name without escaping. One rule for all three, so a name that works in one place works in all.
/// `.` and `..` are not names: in a path they are the dot segments that clients remove (RFC 3986
/// §5.2.4), so no ordinary client could reach such a channel, and put into a URL template they
/// would climb out of its path.
public enum Name {
    public static let maximumLength = 64

    public static func isValid(_ name: String) -> Bool {
        name != "." && name != ".." && hasNameCharacters(name)
    }

    /// 1–64 of the name characters, dot segments included: for names that never go into a path
    /// (view controllers), which a store written before dot segments were refused may hold.
    public static func hasNameCharacters(_ name: String) -> Bool {
        let utf8 = name.utf8
        return (1...maximumLength).contains(utf8.count) && utf8.allSatisfy(isNameByte)
    }

    /// One of `A-Z a-z 0-9 . _ -`.
    public static func isNameByte(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            || byte == UInt8(ascii: ".") || byte == UInt8(ascii: "_") || byte == UInt8(ascii: "-")
    }
}
