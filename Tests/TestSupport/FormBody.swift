/// Request bodies of the two form types, as a browser's form sends them.
public enum FormBody {
    /// `Content-Type: application/x-www-form-urlencoded`, for a body such as `text=hi&kind=sent`.
    public static let urlEncoded = ("Content-Type", "application/x-www-form-urlencoded")

    /// A `multipart/form-data` body of `parts` (one with a filename is a `text/plain` file) and
    /// its Content-Type header.
    public static func multipart(
        _ parts: [(name: String, filename: String?, value: String)], boundary: String = "XyZ"
    ) -> (header: (String, String), body: String) {
        var body = ""
        for part in parts {
            body += "--\(boundary)\r\nContent-Disposition: form-data; name=\"\(part.name)\""
            if let filename = part.filename {
                body += "; filename=\"\(filename)\"\r\nContent-Type: text/plain"
            }
            body += "\r\n\r\n\(part.value)\r\n"
        }
        body += "--\(boundary)--\r\n"
        return (("Content-Type", "multipart/form-data; boundary=\(boundary)"), body)
    }

    /// Every byte but ASCII letters and digits as `%XX`, as a browser's form or
    /// `curl --data-urlencode` sends a value.
    public static func encoded(_ text: String) -> String {
        text.utf8.map { byte in
            let isPlain = (0x30...0x39).contains(byte) || (0x41...0x5A).contains(byte) || (0x61...0x7A).contains(byte)
            let hex = String(byte, radix: 16, uppercase: true)
            return isPlain ? String(UnicodeScalar(byte)) : "%" + (hex.count == 1 ? "0" + hex : hex)
        }.joined()
    }
}
