import Testing

@testable import OverlayEngine

/// The two message fields of §10: `subtitle` (1–256 characters after trimming, drawn in
/// `fullWidth` and `pill` only) and `icon` (1–4 grapheme clusters after trimming, the accessory
/// unless the kind shows a spinner); and the label's measured width.
@Suite("Subtitle, icon and measured text (§10)")
struct SubtitleIconTests {
    static func refusal(_ input: MessageInput) -> String? {
        var engine = makeEngine()
        return engine.post(input, at: .seconds(0)).value.refusedField
    }

    /// A subtitle is trimmed; blank or over 256 characters it is refused, naming `subtitle`.
    @Test func subtitleLength() throws {
        var engine = makeEngine()
        #expect(
            try engine.posted(.message("a", subtitle: "  two of eight \n"), at: .seconds(0)).subtitle == "two of eight")
        #expect(
            try engine.posted(.message("b", subtitle: String(repeating: "é", count: 256)), at: .zero).subtitle?.count
                == 256)
        #expect(try engine.posted(.message("c", subtitle: " x "), at: .zero).subtitle == "x")
        for bad in ["", "   ", "\n\t", String(repeating: "a", count: 257), " " + String(repeating: "é", count: 257)] {
            #expect(Self.refusal(.message("a", subtitle: bad)) == "subtitle", "\(bad.count) characters")
        }
        #expect(engine.version == 3)
    }

    /// An icon is 1–4 grapheme clusters after trimming: a ZWJ family or a flag is one; five are refused.
    @Test func iconClusters() throws {
        let family = "👨‍👩‍👧‍👦"
        let flag = "🇫🇷"
        var engine = makeEngine()
        for good in [
            family, flag, "OK", "👍🏽", "abcd", String(repeating: family, count: 4), String(repeating: flag, count: 4),
        ] {
            #expect(try engine.posted(.message("a", icon: " \(good) "), at: .zero).icon == good)
        }
        #expect(family.unicodeScalars.count == 7)
        for bad in [
            "", "  ", "abcde", String(repeating: family, count: 5), String(repeating: flag, count: 5), "ab cde",
        ] {
            #expect(Self.refusal(.message("a", icon: bad)) == "icon", "\(bad)")
        }
    }

    /// PATCH changes either field, and `null` removes it; a blank one is refused and changes nothing.
    @Test func patchAndRemove() throws {
        var engine = makeEngine { $0.presentation = .fullWidth }
        try engine.posted(.message("a", kind: .sending, subtitle: "one", icon: "📷"), at: .seconds(0))
        try engine.patched(1, MessageInput(subtitle: .some("two"), icon: .some("⭐")), at: .seconds(1))
        #expect(engine.at(1).subtitle?.text == "two")
        #expect(engine.current?.icon == "⭐")
        let version = engine.version
        let blank = engine.update(id: 1, with: MessageInput(subtitle: .some(" ")), at: .seconds(1))
        #expect(blank.value.refusedField == "subtitle")
        #expect(
            engine.update(id: 1, with: MessageInput(icon: .some("abcde")), at: .seconds(1)).value.refusedField == "icon"
        )
        #expect(engine.version == version)
        try engine.patched(1, MessageInput(subtitle: .some(nil), icon: .some(nil)), at: .seconds(2))
        #expect(engine.current?.subtitle == nil)
        #expect(engine.current?.icon == nil)
        #expect(engine.at(2).subtitle == nil)
        // The label is back across the content area (ipad: s' = 20, c = 44).
        #expect(engine.at(2).label?.frame == Rect(x: 30, y: 20, width: 708, height: 44))
    }

    /// A POST with a live key updates that message's subtitle and icon, as a PATCH would.
    @Test func keyedUpdate() throws {
        var engine = makeEngine { $0.presentation = .pill }
        try engine.posted(
            .message("Uploading", kind: .progress, subtitle: "1 of 3", progress: 0.3, key: "up"), at: .zero)
        let update = MessageInput(text: "Uploading", subtitle: .some("2 of 3"), icon: .some("⬆️"), key: "up")
        #expect(try engine.post(update, at: .seconds(1)).value.get().isUpdate)
        let overlay = engine.at(1)
        #expect(overlay.message?.id == 1)
        #expect(overlay.subtitle?.text == "2 of 3")
        #expect(overlay.accessory?.kind == .icon)
        #expect(overlay.accessory?.icon == "⬆️")
    }

    /// The accessory is the spinner of a `sending` message (its icon is not drawn), else the icon,
    /// else none; a kind that stops spinning shows the icon.
    @Test func theAccessory() throws {
        var engine = makeEngine()
        try engine.posted(.message("a", kind: .sending, icon: "📷"), at: .seconds(0))
        let spinner = engine.at(0.25)
        #expect(
            spinner.accessory == Accessory(kind: .activity, icon: nil, frame: Rect(x: 9, y: 2, width: 16, height: 16)))
        #expect(spinner.activity)
        try engine.patched(1, MessageInput(kind: .sent), at: .seconds(1))
        let icon = engine.at(1)
        #expect(icon.accessory == Accessory(kind: .icon, icon: "📷", frame: Rect(x: 9, y: 2, width: 16, height: 16)))
        #expect(!icon.activity)
        try engine.patched(1, MessageInput(icon: .some(nil)), at: .seconds(1.5))
        #expect(engine.at(1.5).accessory == nil)
        // During the slide the accessory moves with the content.
        try engine.posted(.message("b", icon: "⭐"), at: .seconds(5))
        #expect(engine.at(5.125).accessory?.frame == Rect(x: 9, y: 2 - 10, width: 16, height: 16))
    }

    /// The status bar's 20-point bar holds one line: the subtitle is null there (the message keeps
    /// it), and drawn once the presentation is `fullWidth`.
    @Test func noSubtitleInTheStatusBar() throws {
        var engine = makeEngine { $0.presentation = .statusBar }
        try engine.posted(.message("a", subtitle: "second line"), at: .seconds(0))
        let bar = engine.at(0.25)
        #expect(bar.message?.subtitle == "second line")
        #expect(bar.subtitle == nil)
        #expect(bar.label?.frame == Rect(x: 30, y: 0, width: 708, height: 20))
        engine.changePresentation(to: .fullWidth, at: .seconds(1))
        #expect(engine.at(1).subtitle?.text == "second line")
        #expect(engine.at(1).subtitle?.frame == Rect(x: 30, y: 43.5, width: 708, height: 14))
    }

    /// `textWidth` is the measured width; `truncated` is whether it is wider than the frame, in
    /// every presentation: on the iPhone the status bar's label is 320 − 60 = 260 wide.
    @Test func measuredAndTruncated() throws {
        var engine = makeEngine {
            $0.device = .iphone
            $0.text = .bySevenAndSix
        }
        try engine.posted(.message(String(repeating: "a", count: 37)), at: .seconds(0))
        let fits = engine.at(0.25)
        #expect(fits.label?.textWidth == 259)
        #expect(fits.label?.truncated == false)
        try engine.patched(1, MessageInput(text: String(repeating: "a", count: 38)), at: .seconds(1))
        let cut = engine.at(1)
        #expect(cut.label?.textWidth == 266)
        #expect(cut.label?.truncated == true)
        // fullWidth: the same 260; with a subtitle of 44 × 6 = 264 that is cut too.
        engine.changePresentation(to: .fullWidth, at: .seconds(1))
        try engine.patched(
            1, MessageInput(text: "a", subtitle: .some(String(repeating: "b", count: 44))), at: .seconds(1))
        let two = engine.at(1)
        #expect(two.label?.truncated == false)
        #expect(two.subtitle?.textWidth == 264)
        #expect(two.subtitle?.truncated == true)
        // Unmeasured (the default metrics): every width is 0 and nothing is truncated.
        var plain = makeEngine()
        try plain.posted(.message("anything"), at: .zero)
        #expect(plain.at(0.25).label?.textWidth == 0)
        #expect(plain.at(0.25).label?.truncated == false)
    }
}
