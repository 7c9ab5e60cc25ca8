internal import CMicroHTTPD

#if canImport(Glibc)
    import Glibc
#endif

/// The `Date` header (RFC 9110 §6.6.1, IMF-fixdate: `Sun, 06 Nov 1994 08:49:37 GMT`) that the
/// server puts in a response prepared for a fan-out, formatted when that response is built.
///
/// MHD 0.9.75: it adds a Date to every response that has none, calling glibc's `gmtime_r`, which
/// takes a process-wide time-zone lock, once per send: a fan-out's thousands of sends would all
/// queue on that lock. A response that carries its own Date is left alone, and a prepared
/// response is built once for all its sends, so it pays for one `gmtime_r`. (Responses built for
/// one request keep libmicrohttpd's Date: adding a header to each costs more than the lock does.)
enum HTTPDate {
    /// The length of an IMF-fixdate.
    static let length = 29

    /// Adds the Date of now to `response` (libmicrohttpd then adds none).
    static func add(to response: OpaquePointer) {
        withCurrent { _ = MHD_add_response_header(response, "Date", $0) }
    }

    /// Calls `body` with the Date of now as a NUL-terminated C string, valid during the call.
    static func withCurrent<Result>(_ body: (UnsafePointer<CChar>) -> Result) -> Result {
        withUnsafeTemporaryAllocation(of: CChar.self, capacity: length + 1) { buffer in
            format(Int(time(nil)), into: UnsafeMutableRawBufferPointer(buffer))
            return body(buffer.baseAddress!)
        }
    }

    /// `second` (since the epoch, UTC) as an IMF-fixdate followed by a NUL.
    static func format(_ second: Int, into buffer: UnsafeMutableRawBufferPointer) {
        precondition(buffer.count > length, "no room for a date")
        var time = time_t(second)
        var fields = tm()
        gmtime_r(&time, &fields)
        let days = ["Sun", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat"]
        let months = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"]
        var text = days[Int(fields.tm_wday) % 7] + ", " + twoDigits(fields.tm_mday) + " "
        text += months[Int(fields.tm_mon) % 12] + " " + String(1900 + Int(fields.tm_year)) + " "
        text += twoDigits(fields.tm_hour) + ":" + twoDigits(fields.tm_min) + ":" + twoDigits(fields.tm_sec) + " GMT"
        let bytes = Array(text.utf8.prefix(length))
        for index in 0..<buffer.count { buffer[index] = index < bytes.count ? bytes[index] : 0 }
    }

    private static func twoDigits(_ value: Int32) -> String {
        value < 10 ? "0" + String(value) : String(value)
    }
}
