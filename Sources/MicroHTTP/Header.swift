private import CMicroHTTPD

/// One header line: a name and its value.
public struct Header: Hashable, Sendable {
    public let name: String
    public let value: String
    /// "name: value" as libmicrohttpd takes it: two NUL-terminated C strings, made once. Passing a
    /// Swift string to C copies it into a fresh array on every call; a header kept in a static or
    /// a per-version cache pays that once.
    private let storage: CStrings
    /// Into `storage`, which lives as long as any copy of this header. Plain pointers, so that
    /// reading them from a header in place (`add`) retains nothing: a shared header's C strings
    /// (`Content-Type: application/json`) are used by every response (docs/ARCHITECTURE.md,
    /// hot-path rules).
    // Unsafe: they point into `storage`, which is immutable and shared as any class reference is.
    nonisolated(unsafe) private let cName: UnsafePointer<CChar>
    nonisolated(unsafe) private let cValue: UnsafePointer<CChar>

    /// The bytes of "name\0value\0", owned by the headers that share them.
    ///
    /// Unchecked: its rule is that the bytes are written once, in `init`, and only read after (by
    /// libmicrohttpd, which copies them). The compiler holds it to that: the class is private to
    /// `Header`, its fields are `let`, and nothing but `init` writes through `bytes`; only the
    /// pointer type itself is not Sendable.
    private final class CStrings: @unchecked Sendable {
        let bytes: UnsafeMutablePointer<CChar>
        /// Where the value starts in `bytes`.
        let value: UnsafePointer<CChar>

        init(_ name: String, _ value: String) {
            var name = name
            var value = value
            let nameCount = name.utf8.count
            let valueCount = value.utf8.count
            bytes = .allocate(capacity: nameCount + valueCount + 2)
            let target = UnsafeMutableRawPointer(bytes)
            name.withUTF8 { if let base = $0.baseAddress { target.copyMemory(from: base, byteCount: nameCount) } }
            bytes[nameCount] = 0
            value.withUTF8 {
                guard let base = $0.baseAddress else { return }
                target.advanced(by: nameCount + 1).copyMemory(from: base, byteCount: valueCount)
            }
            bytes[nameCount + valueCount + 1] = 0
            self.value = UnsafePointer(bytes + (nameCount + 1))
        }

        deinit {
            bytes.deallocate()
        }
    }

    public init(name: String, value: String) {
        self.name = name
        self.value = value
        storage = CStrings(name, value)
        cName = UnsafePointer(storage.bytes)
        cValue = storage.value
    }

    /// A header of the same name with another value.
    public func with(value: String) -> Header {
        Header(name: name, value: value)
    }

    public static func == (lhs: Header, rhs: Header) -> Bool { lhs.name == rhs.name && lhs.value == rhs.value }

    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(value)
    }
}

extension Header {
    /// Copies `headers` into a libmicrohttpd response, reading each in place (see `cName`).
    static func add(_ headers: [Header], to response: OpaquePointer) {
        headers.withUnsafeBufferPointer { headers in
            for index in headers.indices {
                _ = MHD_add_response_header(response, headers[index].cName, headers[index].cValue)
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
