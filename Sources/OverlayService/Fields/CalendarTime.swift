/// An RFC 3339 date-time (`2026-12-02T10:30:00Z`, `2026-12-02T11:30:00.5+01:00`) as nanoseconds
/// since the Unix epoch: what a sender gives as `at`. Parsed here rather than with Foundation's
/// formatters, which accept more than RFC 3339 and depend on the process's locale.
enum CalendarTime {
    /// What a text in the shape of an RFC 3339 date-time says: a time, or a date or time of day
    /// that does not exist (month 13, 30 February, 24:00), which is a bad value, not bad syntax.
    enum Reading: Equatable {
        case time(unixNanoseconds: Int64)
        case noSuchTime
    }

    /// The reading, or nil if the text does not have the shape of an RFC 3339 date-time with an
    /// offset. Saturates at the ends of Int64 rather than trapping.
    static func read(_ text: String) -> Reading? {
        let bytes = Array(text.utf8)
        var at = 0
        func digits(_ count: Int) -> Int? {
            guard at + count <= bytes.count else { return nil }
            var value = 0
            for byte in bytes[at..<at + count] {
                guard (0x30...0x39).contains(byte) else { return nil }
                value = value * 10 + Int(byte - 0x30)
            }
            at += count
            return value
        }
        func expect(_ allowed: String) -> Bool {
            guard at < bytes.count, allowed.utf8.contains(bytes[at]) else { return false }
            at += 1
            return true
        }
        guard let year = digits(4), expect("-"), let month = digits(2), expect("-"), let day = digits(2),
            expect("Tt "), let hour = digits(2), expect(":"), let minute = digits(2), expect(":"),
            let second = digits(2)
        else { return nil }
        var fraction: Int64 = 0
        if at < bytes.count, bytes[at] == UInt8(ascii: ".") {
            at += 1
            var scale: Int64 = 100_000_000
            let start = at
            while at < bytes.count, (0x30...0x39).contains(bytes[at]) {
                fraction += Int64(bytes[at] - 0x30) * scale
                scale /= 10
                at += 1
            }
            guard at > start else { return nil }
        }
        var offsetSeconds = 0
        var offsetExists = true
        if expect("Zz") {
        } else if at < bytes.count, bytes[at] == UInt8(ascii: "+") || bytes[at] == UInt8(ascii: "-") {
            let sign = bytes[at] == UInt8(ascii: "-") ? -1 : 1
            at += 1
            guard let hours = digits(2), expect(":"), let minutes = digits(2) else { return nil }
            offsetExists = hours <= 23 && minutes <= 59
            offsetSeconds = sign * (hours * 3600 + minutes * 60)
        } else {
            return nil
        }
        guard at == bytes.count else { return nil }
        guard (1...12).contains(month), day >= 1, day <= daysIn(month: month, year: year), hour <= 23, minute <= 59,
            second <= 60, offsetExists
        else { return .noSuchTime }
        let days = daysSinceEpoch(year: year, month: month, day: day)
        let seconds = Int64(days) * 86400 + Int64(hour * 3600 + minute * 60 + second - offsetSeconds)
        // Years outside about 1678–2262 do not fit in Int64 nanoseconds: they saturate, which
        // the engine reads as long past or too far ahead, as they are.
        let (nanoseconds, overflow) = seconds.multipliedReportingOverflow(by: 1_000_000_000)
        guard !overflow else { return .time(unixNanoseconds: seconds > 0 ? .max : .min) }
        let (total, carry) = nanoseconds.addingReportingOverflow(fraction)
        return .time(unixNanoseconds: carry ? .max : total)
    }

    private static func daysIn(month: Int, year: Int) -> Int {
        switch month {
        case 2: year % 4 == 0 && (year % 100 != 0 || year % 400 == 0) ? 29 : 28
        case 4, 6, 9, 11: 30
        default: 31
        }
    }

    /// Days from 1970-01-01 to the date in the proleptic Gregorian calendar (Howard Hinnant's
    /// `days_from_civil`).
    private static func daysSinceEpoch(year: Int, month: Int, day: Int) -> Int {
        let y = month <= 2 ? year - 1 : year
        let era = (y >= 0 ? y : y - 399) / 400
        let yearOfEra = y - era * 400
        let dayOfYear = (153 * (month + (month > 2 ? -3 : 9)) + 2) / 5 + day - 1
        let dayOfEra = yearOfEra * 365 + yearOfEra / 4 - yearOfEra / 100 + dayOfYear
        return era * 146_097 + dayOfEra - 719_468
    }
}
