private import CMicroHTTPD

/// One field of a form body, as libmicrohttpd's post processor decodes it
/// (`HTTPRequest.formFields()`).
public struct FormField: Sendable, Hashable {
    /// The field's name, percent-decoded.
    public var name: String
    /// The value's bytes, percent-decoded (a multipart file part's contents).
    public var value: [UInt8]
    /// The file name of a multipart part that is a file.
    public var filename: String?
    /// The content type a multipart part declares.
    public var contentType: String?

    public init(name: String, value: [UInt8], filename: String? = nil, contentType: String? = nil) {
        self.name = name
        self.value = value
        self.filename = filename
        self.contentType = contentType
    }

    /// Whether `body` is `name=value` pairs joined by `&`, each `%` starting an escape of two hex
    /// digits: a body that decodes as an URL-encoded form. The post processor would also take a
    /// pair without `=` (plain text sent with the form type, as `curl -d` does) or a stray `%`,
    /// and make a field of it.
    static func isURLEncodedForm(_ body: [UInt8]) -> Bool {
        var index = 0
        var pairStarted = false
        var pairHasEquals = false
        while index < body.count {
            switch body[index] {
            case UInt8(ascii: "&"):
                if pairStarted && !pairHasEquals { return false }
                pairStarted = false
                pairHasEquals = false
            case UInt8(ascii: "="):
                pairStarted = true
                pairHasEquals = true
            case UInt8(ascii: "%"):
                guard index + 2 < body.count, isHexDigit(body[index + 1]), isHexDigit(body[index + 2]) else {
                    return false
                }
                pairStarted = true
                index += 2
            default:
                pairStarted = true
            }
            index += 1
        }
        return !pairStarted || pairHasEquals
    }

    private static func isHexDigit(_ byte: UInt8) -> Bool {
        (0x30...0x39).contains(byte) || (0x41...0x46).contains(byte) || (0x61...0x66).contains(byte)
    }
}

extension HTTPResponder {
    /// The body decoded as a form, while the handler runs (see `HTTPRequest.formFields()`).
    func formFields(of body: [UInt8]) -> [FormField]? {
        guard lookupOpen.load(ordering: .acquiring) else { return nil }
        let type = withHeader("Content-Type") { $0.map { String(decoding: $0, as: UTF8.self) } }
        let urlEncoded = type.map { $0.lowercased().hasPrefix("application/x-www-form-urlencoded") } ?? true
        if urlEncoded && !FormField.isURLEncodedForm(body) { return nil }
        final class Collector {
            var fields: [FormField] = []
        }
        let collector = Collector()
        let decoded = withExtendedLifetime(collector) {
            body.withUnsafeBytes { bytes in
                overlayd_mhd_decode_form(
                    connection, bytes.baseAddress?.assumingMemoryBound(to: CChar.self), bytes.count,
                    { context, _, key, filename, contentType, _, data, offset, size in
                        let collector = Unmanaged<Collector>.fromOpaque(context!).takeUnretainedValue()
                        let name = key.map { String(cString: $0) } ?? ""
                        // A long value comes in pieces; each after the first continues the last field.
                        if offset > 0, let last = collector.fields.indices.last, collector.fields[last].name == name {
                            collector.fields[last].value.append(
                                contentsOf: UnsafeRawBufferPointer(start: data, count: size))
                        } else {
                            collector.fields.append(
                                FormField(
                                    name: name, value: Array(UnsafeRawBufferPointer(start: data, count: size)),
                                    filename: filename.map { String(cString: $0) },
                                    contentType: contentType.map { String(cString: $0) }))
                        }
                        return .YES
                    }, Unmanaged.passUnretained(collector).toOpaque(), type == nil ? 1 : 0)
            }
        }
        return decoded != 0 ? collector.fields : nil
    }
}
