import MicroHTTP
import Platform

#if canImport(Glibc)
    import Glibc
#endif

/// One line per request on standard error (MODEL §7): a fixed message and `key=value` fields, or
/// (`accessLog: "json"`) one JSON object.
enum AccessLog {
    static func write(_ record: AccessRecord) {
        var line = "access method=\(record.method) path=\(escaped(record.path)) status=\(record.status)"
        line += " bytes=\(record.bytes) us=\(record.microseconds) client=\(record.remoteAddress)"
        line += " principal=\(record.principal.isEmpty ? "-" : escaped(record.principal))\n"
        Diagnostics.write(line)
    }

    /// The record as one JSON object on a line, stamped with the wall-clock time it is written.
    static func writeJSON(_ record: AccessRecord) {
        Diagnostics.write(json(record, at: WallClock.microseconds()) + "\n")
    }

    /// The JSON object, `time` being `microseconds` since the epoch in RFC 3339 UTC.
    static func json(_ record: AccessRecord, at microseconds: Int64) -> String {
        var text = "{\"time\":\"\(timestamp(microseconds))\",\"method\":\(quoted(record.method))"
        text += ",\"path\":\(quoted(record.path)),\"status\":\(record.status),\"bytes\":\(record.bytes)"
        text += ",\"microseconds\":\(record.microseconds),\"client\":\(quoted(record.remoteAddress))"
        text += ",\"principal\":\(record.principal.isEmpty ? "null" : quoted(record.principal))}"
        return text
    }

    /// `2026-12-02T13:00:00.123456Z`: `gmtime_r` for the calendar, the microseconds appended.
    static func timestamp(_ microseconds: Int64) -> String {
        var seconds = time_t(microseconds.quotientAndRemainder(dividingBy: 1_000_000).quotient)
        var fraction = Int(microseconds % 1_000_000)
        if fraction < 0 {
            seconds -= 1
            fraction += 1_000_000
        }
        var fields = tm()
        gmtime_r(&seconds, &fields)
        func pad(_ number: Int, _ width: Int) -> String {
            let digits = String(number)
            return String(repeating: "0", count: max(0, width - digits.count)) + digits
        }
        return pad(Int(fields.tm_year) + 1900, 4) + "-" + pad(Int(fields.tm_mon) + 1, 2) + "-"
            + pad(Int(fields.tm_mday), 2) + "T" + pad(Int(fields.tm_hour), 2) + ":" + pad(Int(fields.tm_min), 2)
            + ":" + pad(Int(fields.tm_sec), 2) + "." + pad(fraction, 6) + "Z"
    }

    /// A JSON string: quotes, backslashes and control characters escaped; other text as it is
    /// (the path arrives as valid UTF-8 text, so the line stays valid JSON).
    static func quoted(_ string: String) -> String {
        var result = "\""
        for scalar in string.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            case _ where scalar.value < 0x20 || scalar.value == 0x7F:
                let hex = String(scalar.value, radix: 16)
                result += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: result.unicodeScalars.append(scalar)
            }
        }
        return result + "\""
    }

    /// The path with spaces, quotes, control characters and non-ASCII bytes percent-encoded, so
    /// that a request cannot forge or break a log line.
    static func escaped(_ path: String) -> String {
        var result = ""
        for byte in path.utf8 {
            if byte <= 0x20 || byte >= 0x7F || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "%") {
                let hex = Array("0123456789ABCDEF".utf8)
                result.unicodeScalars.append("%")
                result.unicodeScalars.append(Unicode.Scalar(hex[Int(byte >> 4)]))
                result.unicodeScalars.append(Unicode.Scalar(hex[Int(byte & 0xF)]))
            } else {
                result.unicodeScalars.append(Unicode.Scalar(byte))
            }
        }
        return result
    }
}
