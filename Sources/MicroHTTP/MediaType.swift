/// A media type as `Content-Type` (or a part's `Content-Disposition`) writes it:
/// `type/subtype; name=value; name="quoted value"` (RFC 9110 §8.3.1). The one reading of those
/// headers: the body's kind, a multipart boundary, a part's field name.
public struct MediaType: Sendable, Equatable {
    /// How a request's body is to be read, by its `Content-Type`.
    public enum Kind: Sendable, Equatable {
        /// `application/json` or any `…+json`.
        case json
        /// `text/plain`.
        case text
        /// No type (or a blank one), or `application/x-www-form-urlencoded`: what `curl -d` sends.
        case unnamedOrForm
        /// `multipart/form-data`.
        case multipart
        /// Any other type, in lower case.
        case other(String)
    }

    /// `type/subtype` in lower case, without the blanks around it; empty when none is given.
    public let type: String
    /// The parameters in order, names in lower case, quoted values unquoted.
    public let parameters: [Parameter]

    public struct Parameter: Sendable, Equatable {
        public var name: String
        public var value: String
    }

    public init(_ header: String) {
        var header = header
        type = header.withUTF8 { utf8 in
            let bytes = UnsafeRawBufferPointer(utf8)
            let end = bytes.firstIndex(of: UInt8(ascii: ";")) ?? bytes.endIndex
            return MediaType.lowered(MediaType.trimmed(UnsafeRawBufferPointer(rebasing: bytes[..<end])))
        }
        parameters = MediaType.parameters(of: header)
    }

    /// The value of the parameter `name` (compared without regard to case), or nil.
    public func parameter(_ name: String) -> String? {
        let name = name.lowercased()
        return parameters.first { $0.name == name }?.value
    }

    /// The kind of a `Content-Type` value (nil: none given). An ASCII value, which is all a real
    /// client sends, is judged from its bytes without making a String.
    public static func kind(of header: UnsafeRawBufferPointer?) -> Kind {
        guard let header else { return .unnamedOrForm }
        guard header.allSatisfy({ $0 < 0x80 }) else {
            return kind(ofType: MediaType(String(decoding: header, as: UTF8.self)).type)
        }
        let end = header.firstIndex(of: UInt8(ascii: ";")) ?? header.endIndex
        let type = trimmed(UnsafeRawBufferPointer(rebasing: header[..<end]))
        /// Whether the type's bytes from `offset` to its end are `name` (in lower case), with
        /// ASCII letters compared without regard to case.
        func equals(_ name: StaticString, at offset: Int = 0) -> Bool {
            let count = name.utf8CodeUnitCount
            guard offset >= 0, offset + count == type.count else { return false }
            for index in 0..<count where lower(type[offset + index]) != name.utf8Start[index] { return false }
            return true
        }
        if equals("application/json") || equals("+json", at: type.count - 5) { return .json }
        if equals("text/plain") { return .text }
        if type.isEmpty || equals("application/x-www-form-urlencoded") { return .unnamedOrForm }
        if equals("multipart/form-data") { return .multipart }
        return .other(String(decoding: type, as: UTF8.self).lowercased())
    }

    /// The kind of a type as `type` holds it (lower case).
    public static func kind(ofType type: String) -> Kind {
        switch type {
        case "application/json": .json
        case "text/plain": .text
        case "", "application/x-www-form-urlencoded": .unnamedOrForm
        case "multipart/form-data": .multipart
        default: type.hasSuffix("+json") ? .json : .other(type)
        }
    }

    // MARK: - Reading

    private static func isBlank(_ byte: UInt8) -> Bool {
        byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D
    }

    private static func lower(_ byte: UInt8) -> UInt8 {
        byte >= UInt8(ascii: "A") && byte <= UInt8(ascii: "Z") ? byte + 32 : byte
    }

    private static func trimmed(_ bytes: UnsafeRawBufferPointer) -> UnsafeRawBufferPointer {
        var start = bytes.startIndex
        var end = bytes.endIndex
        while start < end, isBlank(bytes[start]) { start += 1 }
        while end > start, isBlank(bytes[end - 1]) { end -= 1 }
        return UnsafeRawBufferPointer(rebasing: bytes[start..<end])
    }

    /// The text in lower case; only one with capitals or non-ASCII letters needs Unicode's.
    private static func lowered(_ bytes: UnsafeRawBufferPointer) -> String {
        let text = String(decoding: bytes, as: UTF8.self)
        let isLower = bytes.allSatisfy { $0 < UInt8(ascii: "A") || ($0 > UInt8(ascii: "Z") && $0 < 0x80) }
        return isLower ? text : text.lowercased()
    }

    /// `; name=value` pairs after the type; a value may be a quoted string with `\` escapes.
    private static func parameters(of header: String) -> [Parameter] {
        let bytes = Array(header.utf8)
        guard var index = bytes.firstIndex(of: UInt8(ascii: ";")) else { return [] }
        var parameters: [Parameter] = []
        while index < bytes.count {
            index += 1  // past the ";"
            while index < bytes.count, isBlank(bytes[index]) { index += 1 }
            let nameStart = index
            while index < bytes.count, bytes[index] != UInt8(ascii: "="), bytes[index] != UInt8(ascii: ";") {
                index += 1
            }
            let name = lowered(bytes[nameStart..<index].withUnsafeBytes { trimmed($0) })
            guard index < bytes.count, bytes[index] == UInt8(ascii: "=") else { continue }
            index += 1
            var value: [UInt8] = []
            if index < bytes.count, bytes[index] == UInt8(ascii: "\"") {
                index += 1
                while index < bytes.count, bytes[index] != UInt8(ascii: "\"") {
                    if bytes[index] == UInt8(ascii: "\\"), index + 1 < bytes.count { index += 1 }
                    value.append(bytes[index])
                    index += 1
                }
                // Past the closing quote, to the next ";".
                while index < bytes.count, bytes[index] != UInt8(ascii: ";") { index += 1 }
            } else {
                let valueStart = index
                while index < bytes.count, bytes[index] != UInt8(ascii: ";") { index += 1 }
                value = bytes[valueStart..<index].withUnsafeBytes { Array(trimmed($0)) }
            }
            if !name.isEmpty { parameters.append(Parameter(name: name, value: String(decoding: value, as: UTF8.self))) }
        }
        return parameters
    }
}
