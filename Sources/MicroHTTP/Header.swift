private import CMicroHTTPD

/// One header line: a name and its value.
public struct Header: Hashable, Sendable {
    public let name: String
    public let value: String
    /// "name: value" as libmicrohttpd takes it: two NUL-terminated C strings, made once. Passing a
    /// Swift string to C copies it into a fresh array on every call; a header kept in a static or
    /// a per-version cache pays that once.
    let cName: ContiguousArray<CChar>
    let cValue: ContiguousArray<CChar>

    public init(name: String, value: String) {
        self.name = name
        self.value = value
        self.cName = name.utf8CString
        self.cValue = value.utf8CString
    }

    private init(name: String, cName: ContiguousArray<CChar>, value: String) {
        self.name = name
        self.value = value
        self.cName = cName
        self.cValue = value.utf8CString
    }

    /// A header of the same name with another value; the name's C string is shared, not made again.
    public func with(value: String) -> Header {
        Header(name: name, cName: cName, value: value)
    }

    public static func == (lhs: Header, rhs: Header) -> Bool { lhs.name == rhs.name && lhs.value == rhs.value }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(value)
    }
}

extension Header {
    /// Copies `headers` into a libmicrohttpd response (their C strings were made once, with them).
    static func add(_ headers: [Header], to response: OpaquePointer) {
        for header in headers {
            header.cName.withUnsafeBufferPointer { name in
                header.cValue.withUnsafeBufferPointer { value in
                    _ = MHD_add_response_header(response, name.baseAddress, value.baseAddress)
                }
            }
        }
    }
}

/// Calls `body` with `text` as a NUL-terminated C string on the stack: no heap copy.
func withCString<T>(_ text: String, _ body: (UnsafePointer<CChar>) -> T) -> T {
    var text = text
    return text.withUTF8 { utf8 in
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: utf8.count + 1) { buffer in
            utf8.withMemoryRebound(to: CChar.self) { source in
                _ = buffer.initialize(fromContentsOf: source)
            }
            buffer[utf8.count] = 0
            return body(buffer.baseAddress!)
        }
    }
}
