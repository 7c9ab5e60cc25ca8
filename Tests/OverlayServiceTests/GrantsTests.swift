import Testing

@testable import OverlayService

/// How grants resolve to a channel's access, without HTTP: patterns, the most specific grant
/// deciding, `deny` winning a tie, and read and write adding up.
@Suite("Grants")
struct GrantsTests {
    static func grants(_ list: [(String, GrantAccess)]) -> Grants {
        Grants(list.map { Grant(ChannelPattern($0.0)!, $0.1) })
    }

    /// A pattern matches a name when its `*`s can stand for runs (empty included) that make the
    /// two equal; every other character matches itself only, case-sensitively, `.` too.
    @Test(arguments: [
        ("*", "default", true), ("*", "a", true), ("lobby", "lobby", true), ("lobby", "lobby2", false),
        ("lobby", "Lobby", false), ("builds-*", "builds-", true), ("builds-*", "builds-ios", true),
        ("builds-*", "builds", false), ("builds-*", "xbuilds-ios", false), ("*-prod", "api-prod", true),
        ("*-prod", "api-prod2", false), ("a*b*c", "abc", true), ("a*b*c", "aXbYc", true), ("a*b*c", "acb", false),
        ("a*b*c", "abcbc", true), ("a.b", "a.b", true), ("a.b", "aXb", false), ("**", "x", true), ("*a*", "bab", true),
        ("*a*", "bbb", false), ("a*", "a", true), ("*aaa", "aaaa", true), ("*ab", "aab", true), ("a*a", "a", false),
    ])
    func patterns(pattern: String, name: String, matches: Bool) {
        #expect(ChannelPattern(pattern)!.matches(name) == matches)
    }

    /// A pattern is 1–64 of the name characters and `*`; anything else is not one.
    @Test(arguments: ["", "a/b", "a b", "ä", "a?", "%2A", String(repeating: "a", count: 65), "a\u{0}"])
    func badPatterns(pattern: String) {
        #expect(ChannelPattern(pattern) == nil)
    }

    @Test func specificityCountsTheCharactersOtherThanStars() {
        #expect(ChannelPattern("*")!.specificity == 0)
        #expect(ChannelPattern("builds-*")!.specificity == 7)
        #expect(ChannelPattern("a*b*c")!.specificity == 3)
        #expect(ChannelPattern(String(repeating: "a", count: 64))!.specificity == 64)
    }

    /// The table of cases: grants, a channel, the access it resolves to.
    @Test(
        arguments: [
            // No matching grant: no access.
            ([], "default", ChannelAccess()),
            ([("lobby", .read)], "default", []),
            // One grant decides alone.
            ([("*", .readWrite)], "x", .readWrite),
            ([("*", .read)], "x", .read),
            ([("*", .write)], "x", .write),
            ([("*", .deny)], "x", []),
            // The most specific grant decides, whichever order they come in.
            ([("*", .read), ("secret", .deny)], "secret", []),
            ([("secret", .deny), ("*", .read)], "secret", []),
            ([("*", .read), ("secret", .deny)], "public", .read),
            ([("*", .deny), ("lobby", .read)], "lobby", .read),
            ([("*", .readWrite), ("builds-*", .read)], "builds-ios", .read),
            ([("builds-*", .read), ("builds-ios", .write)], "builds-ios", .write),
            ([("builds-*", .read), ("builds-ios", .write)], "builds-mac", .read),
            ([("b*", .deny), ("builds-*", .write)], "builds-1", .write),
            // Equally specific: deny wins a tie, else the accesses add up.
            ([("*", .read), ("*", .write)], "x", .readWrite),
            ([("a*", .read), ("*a", .write)], "aa", .readWrite),
            ([("a*", .read), ("*a", .deny)], "aa", []),
            ([("*", .read), ("*", .write), ("*", .deny)], "x", []),
            ([("a*", .readWrite), ("*a", .deny)], "ab", .readWrite),
            // Stars add nothing to specificity: `**` ties with `*`.
            ([("**", .deny), ("*", .readWrite)], "x", []),
        ] as [([(String, GrantAccess)], String, ChannelAccess)])
    func resolution(list: [(String, GrantAccess)], channel: String, access: ChannelAccess) {
        #expect(Self.grants(list).access(to: channel) == access)
    }

    /// What `/metrics`, `GET /` and the clock need: the access on every channel there is.
    @Test(
        arguments: [
            ([("*", .read)], ChannelAccess.read, true),
            ([("*", .readWrite)], .read, true),
            ([("*", .readWrite)], .write, true),
            ([("*", .read)], .write, false),
            ([("lobby", .read)], .read, false),
            ([("*", .read), ("secret", .deny)], .read, false),
            // A more specific grant without read takes read away from the channels it matches.
            ([("*", .readWrite), ("builds-*", .write)], .read, false),
            ([("*", .readWrite), ("builds-*", .write)], .write, true),
            ([("*", .read), ("*", .write)], .write, true),
            ([], .read, false),
        ] as [([(String, GrantAccess)], ChannelAccess, Bool)])
    func everything(list: [(String, GrantAccess)], access: ChannelAccess, covered: Bool) {
        #expect(Self.grants(list).coversEverything(access) == covered)
    }

    /// A hostile pattern of many stars against a long name is still decided, and decided right.
    @Test func manyStarsDoNotBacktrackWithoutEnd() {
        let pattern = ChannelPattern(String(repeating: "*a", count: 31) + "*b")!
        #expect(!pattern.matches(String(repeating: "a", count: 64)))
        #expect(pattern.matches(String(repeating: "a", count: 63) + "b"))
    }
}
