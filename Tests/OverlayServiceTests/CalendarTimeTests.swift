import Testing

@testable import OverlayService

#if canImport(Glibc)
    import Glibc
#endif

/// `at` as an RFC 3339 date-time: the times it takes, checked against the C library's `timegm`,
/// and the texts it refuses.
@Suite("RFC 3339 times")
struct CalendarTimeTests {
    static func timegm(
        _ year: Int32, _ month: Int32, _ day: Int32, _ hour: Int32, _ minute: Int32, _ second: Int32
    )
        -> Int64
    {
        var parts = tm()
        parts.tm_year = year - 1900
        parts.tm_mon = month - 1
        parts.tm_mday = day
        parts.tm_hour = hour
        parts.tm_min = minute
        parts.tm_sec = second
        return Int64(Glibc.timegm(&parts)) * 1_000_000_000
    }

    @Test func acceptedTimes() {
        let cases: [(String, Int64)] = [
            ("1970-01-01T00:00:00Z", 0),
            ("2026-12-02T10:30:00Z", Self.timegm(2026, 12, 2, 10, 30, 0)),
            ("2026-12-02t10:30:00z", Self.timegm(2026, 12, 2, 10, 30, 0)),
            ("2026-12-02 10:30:00Z", Self.timegm(2026, 12, 2, 10, 30, 0)),
            ("2026-12-02T11:30:00+01:00", Self.timegm(2026, 12, 2, 10, 30, 0)),
            ("2026-12-02T05:00:00-05:30", Self.timegm(2026, 12, 2, 10, 30, 0)),
            ("2026-12-02T10:30:00.25Z", Self.timegm(2026, 12, 2, 10, 30, 0) + 250_000_000),
            ("2026-12-02T10:30:00.123456789Z", Self.timegm(2026, 12, 2, 10, 30, 0) + 123_456_789),
            ("2024-02-29T00:00:00Z", Self.timegm(2024, 2, 29, 0, 0, 0)),
            ("2000-02-29T23:59:59Z", Self.timegm(2000, 2, 29, 23, 59, 59)),
            ("1969-12-31T23:59:59Z", -1_000_000_000),
            ("2099-12-31T23:59:60Z", Self.timegm(2100, 1, 1, 0, 0, 0)),
        ]
        for (text, expected) in cases {
            #expect(CalendarTime.read(text) == .time(unixNanoseconds: expected), "\(text)")
        }
    }

    /// Years beyond what 64-bit nanoseconds hold saturate instead of trapping.
    @Test func farYearsSaturate() {
        #expect(CalendarTime.read("9999-12-31T23:59:59.999999999Z") == .time(unixNanoseconds: .max))
        #expect(CalendarTime.read("2262-04-11T23:47:16.854775807Z") == .time(unixNanoseconds: .max))
        #expect(CalendarTime.read("2262-04-11T23:47:16Z") == .time(unixNanoseconds: 9_223_372_036_000_000_000))
        #expect(CalendarTime.read("0000-01-01T00:00:00Z") == .time(unixNanoseconds: .min))
        #expect(CalendarTime.read("1677-09-21T00:12:44Z") == .time(unixNanoseconds: -9_223_372_036_000_000_000))
    }

    /// Not the shape of an RFC 3339 date-time with an offset: a bad request.
    @Test(arguments: [
        "", "2026-12-02", "2026-12-02T10:30:00", "2026-12-02T10:30Z", "2026-12-02T10:30:00.Z",
        "2026-12-02T10:30:00+0100", "2026-12-02T10:30:00Zjunk", " 2026-12-02T10:30:00Z", "2026-1-02T10:30:00Z",
        "２０２６-12-02T10:30:00Z", "2026-12-02T10:30:00+24:00x",
    ])
    func refusedTexts(_ text: String) {
        #expect(CalendarTime.read(text) == nil)
    }

    /// The right shape naming no time on the calendar: a bad value.
    @Test(arguments: [
        "2026-13-02T10:30:00Z", "2026-00-02T10:30:00Z", "2026-02-29T10:30:00Z", "1900-02-29T00:00:00Z",
        "2026-04-31T00:00:00Z", "2026-12-02T24:00:00Z", "2026-12-02T10:60:00Z", "2026-12-02T10:30:61Z",
        "2026-12-02T10:30:00+24:00", "2026-12-02T10:30:00-05:60",
    ])
    func timesThatDoNotExist(_ text: String) {
        #expect(CalendarTime.read(text) == .noSuchTime)
    }
}
