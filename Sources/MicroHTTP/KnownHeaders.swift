internal import CMicroHTTPD

/// The headers the service reads on most requests, as the head check found them on its walk over
/// every header (`overlayd_known_headers` in shim.h): reading one is a pointer and a length, not a
/// search of libmicrohttpd's list and a C copy of the name. Each is the first header of its name,
/// as `MHD_lookup_connection_value` would give it, up to any NUL; valid while the request lives.
struct KnownHeaders {
    private let found: overlayd_known_headers

    init(_ found: overlayd_known_headers) {
        self.found = found
    }

    /// The value of the header `name` (nil inside: none was given), or nil when `name` is not
    /// one of the known ones as the service spells them (look it up in libmicrohttpd instead).
    func value(named name: String) -> UnsafeRawBufferPointer?? {
        guard let index = KnownHeaders.index(of: name) else { return nil }
        let given = withUnsafeBytes(of: found.found) { $0[index] }
        let value = withUnsafeBytes(of: found.value) {
            $0.load(fromByteOffset: index * MemoryLayout<UnsafePointer<CChar>?>.stride, as: UnsafePointer<CChar>?.self)
        }
        guard given != 0, let value else { return .some(nil) }
        let size = withUnsafeBytes(of: found.size) {
            $0.load(fromByteOffset: index * MemoryLayout<UInt32>.stride, as: UInt32.self)
        }
        return .some(UnsafeRawBufferPointer(start: value, count: Int(size)))
    }

    /// The slot for a header name as the service spells it, or nil (another spelling is looked up
    /// in libmicrohttpd, with the same answer). By length first: comparing unequal strings costs a
    /// call into the runtime each.
    private static func index(of name: String) -> Int? {
        switch name.utf8.count {
        case 4: name == "Host" ? Int(OVERLAYD_KNOWN_HOST.rawValue) : nil
        case 6: name == "Origin" ? Int(OVERLAYD_KNOWN_ORIGIN.rawValue) : nil
        case 12: name == "Content-Type" ? Int(OVERLAYD_KNOWN_CONTENT_TYPE.rawValue) : nil
        case 13:
            switch name {
            case "Authorization": Int(OVERLAYD_KNOWN_AUTHORIZATION.rawValue)
            case "If-None-Match": Int(OVERLAYD_KNOWN_IF_NONE_MATCH.rawValue)
            case "Last-Event-ID": Int(OVERLAYD_KNOWN_LAST_EVENT_ID.rawValue)
            default: nil
            }
        default: nil
        }
    }
}
