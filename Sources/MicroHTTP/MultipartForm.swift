/// `multipart/form-data` (RFC 7578 on RFC 2046's framing): the parts of a body between its
/// boundary lines, each with its `Content-Disposition` name (and file name) and its bytes as sent.
public enum MultipartForm {
    /// The fields of `body` framed by `boundary`, or nil when it is not such a body from end to
    /// end: no closing boundary, a part without its blank line or without a form-data name.
    /// Text before the first boundary line and after the last is ignored, as RFC 2046 says.
    public static func fields(_ body: [UInt8], boundary: String) -> [FormField]? {
        guard (1...70).contains(boundary.utf8.count) else { return nil }
        let delimiter = Array("--\(boundary)".utf8)
        // The first boundary line: at the start, or after a preamble's line break.
        var position: Int
        if body.starts(with: delimiter) {
            position = delimiter.count
        } else if let found = find([13, 10] + delimiter, in: body, from: 0) {
            position = found + 2 + delimiter.count
        } else {
            return nil
        }
        let next = [13, 10] + delimiter
        var fields: [FormField] = []
        while true {
            if body[position...].starts(with: [UInt8(ascii: "-"), UInt8(ascii: "-")]) { return fields }
            // Blanks may follow a boundary before its line break.
            while position < body.count, body[position] == 0x20 || body[position] == 0x09 { position += 1 }
            guard body[position...].starts(with: [13, 10]) else { return nil }
            position += 2
            // The part's header lines, up to the blank line; a part without any is malformed.
            guard let headEnd = find([13, 10, 13, 10], in: body, from: position), headEnd > position,
                var field = part(Array(body[position..<headEnd]))
            else { return nil }
            let contentStart = headEnd + 4
            guard let contentEnd = find(next, in: body, from: contentStart) else { return nil }
            field.value = Array(body[contentStart..<contentEnd])
            fields.append(field)
            position = contentEnd + next.count
        }
    }

    /// The `boundary` parameter of a `multipart/form-data` content type, or nil.
    public static func boundary(of contentType: String) -> String? {
        MediaType(contentType).parameter("boundary")
    }

    /// A part's field from its header lines: the name (and file name) of its form-data
    /// disposition and its content type.
    private static func part(_ head: [UInt8]) -> FormField? {
        var field: FormField?
        var contentType: String?
        for line in head.split(separator: 10) {
            let text = String(decoding: line.last == 13 ? line.dropLast() : line, as: UTF8.self)
            guard let colon = text.firstIndex(of: ":") else { return nil }
            let name = text[..<colon].lowercased()
            let value = String(text[text.index(after: colon)...])
            switch name {
            case "content-disposition":
                let disposition = MediaType(value)
                guard disposition.type == "form-data", let fieldName = disposition.parameter("name") else { return nil }
                field = FormField(name: fieldName, value: [], filename: disposition.parameter("filename"))
            case "content-type":
                contentType = String(
                    value.drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
            default:
                continue
            }
        }
        field?.contentType = contentType
        return field
    }

    /// Where `pattern` first starts in `bytes` at or after `start`.
    private static func find(_ pattern: [UInt8], in bytes: [UInt8], from start: Int) -> Int? {
        guard !pattern.isEmpty, bytes.count >= pattern.count, start <= bytes.count - pattern.count else { return nil }
        var index = max(0, start)
        let first = pattern[0]
        while index <= bytes.count - pattern.count {
            if bytes[index] == first && bytes[index..<(index + pattern.count)].elementsEqual(pattern) { return index }
            index += 1
        }
        return nil
    }
}
