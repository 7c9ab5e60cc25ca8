/// One field of a form body (`HTTPRequest.formFields()`).
public struct FormField: Sendable, Hashable {
    /// The field's name, percent-decoded.
    public var name: String
    /// The value's bytes, percent-decoded (a multipart part's contents as sent).
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
}
