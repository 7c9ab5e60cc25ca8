import Testing

@testable import OverlayEngine

/// MODEL §2's trimming, one grapheme cluster at a time: a cluster at either end goes only when
/// every scalar in it is white space (Unicode's White_Space). A space that a combining mark makes
/// part of a cluster stays, and the 256-cluster count and the measured widths follow what stays.
@Suite("Trimming (MODEL §2)")
struct TrimmingTests {
    /// A text as sent and as stored.
    @Test(arguments: [
        ("x \u{301}", "x \u{301}"), ("\u{A0}\u{301}", "\u{A0}\u{301}"), (" \u{301}", " \u{301}"),
        ("  x  ", "x"), ("\t\n x \r\n", "x"), ("\r\n\u{301}\r\n", "\u{301}"), ("  \u{301}x ", " \u{301}x"),
        ("\u{85}\u{A0}x\u{3000}\u{2028}", "x"), ("\u{301}", "\u{301}"), ("a b", "a b"),
        (" 👨‍👩‍👧‍👦 ", "👨‍👩‍👧‍👦"), ("👩🏽‍💻\u{A0}", "👩🏽‍💻"), ("\t🇫🇷🇩🇪\n", "🇫🇷🇩🇪"),
        // A zero width space is not white space (Unicode does not count it), now as before.
        ("x\u{200B}", "x\u{200B}"), ("\u{200B}", "\u{200B}"), (" \u{200B} ", "\u{200B}"),
    ])
    func kept(sent: String, stored: String) throws {
        #expect(try MessageRules.text(sent).get() == stored)
        var engine = makeEngine()
        #expect(try engine.posted(.message(sent, subtitle: sent), at: .zero).text == stored)
        #expect(engine.current?.subtitle == stored)
        try engine.posted(.message("second"), at: .zero)
        #expect(try engine.patched(2, MessageInput(text: sent), at: .seconds(0.1)).text == stored)
    }

    /// Texts of white space alone are empty, in any mix of Unicode's white space.
    @Test(arguments: [" \t \t ", "\r\n", "\u{A0}", "\u{85}\u{2028}\u{3000} \u{202F}", ""])
    func empty(sent: String) {
        var engine = makeEngine()
        #expect(engine.post(.message(sent), at: .zero).value.refusedField == "text")
        #expect(engine.post(.message("a", subtitle: sent), at: .zero).value.refusedField == "subtitle")
        #expect(engine.version == 0)
    }

    /// The icon is trimmed alike: a space under a combining mark is part of the icon.
    @Test func icon() throws {
        #expect(try MessageRules.icon(" ⭐ ").get() == "⭐")
        #expect(try MessageRules.icon("⭐ \u{301}").get() == "⭐ \u{301}")
        #expect(try MessageRules.icon("\u{A0}\u{301}").get() == "\u{A0}\u{301}")
        #expect(throws: EngineError.self) { try MessageRules.icon("\u{A0} \t").get() }
    }

    /// The 256 clusters are counted on the kept text: trailing spaces with combining marks count.
    @Test func countFollowsKeptText() {
        let longest = "x" + String(repeating: " \u{301}", count: 255)
        #expect(longest.count == 256)
        #expect((try? MessageRules.text(longest).get()) == longest)
        #expect(MessageRules.text(longest + " \u{301}").refusedField == "text")
        // Plain trailing spaces are trimmed first, and do not count.
        #expect((try? MessageRules.text(longest + "   ").get()) == longest)
    }

    /// The width is measured on the kept text: two clusters are 14 points at 7 a cluster, one
    /// is 6 in the subtitle (which the full-width presentation draws).
    @Test func widthFollowsKeptText() throws {
        var engine = makeEngine {
            $0.text = .bySevenAndSix
            $0.presentation = .fullWidth
        }
        try engine.posted(.message("x \u{301}", subtitle: "\u{A0}\u{301} "), at: .zero)
        let shown = engine.overlay(at: .seconds(1))
        #expect(shown.label?.text == "x \u{301}")
        #expect(shown.label?.textWidth == 14)
        #expect(shown.subtitle?.textWidth == 6)
    }
}
