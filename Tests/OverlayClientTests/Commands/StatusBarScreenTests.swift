import OverlayClient
import Testing

@testable import OverlayCommands

/// What `watch` draws for an overlay, cell by cell and escape by escape.
@Suite("watch screen")
struct StatusBarScreenTests {
    /// 80 columns for the ipad's 768 points: the label from column 3 to 77.
    static func screen(_ overlay: Overlay?, colors: ColorMode = .trueColor) -> StatusBarScreen {
        var screen = StatusBarScreen()
        screen.overlay = overlay
        screen.connection = .connected
        screen.colors = colors
        screen.columns = 80
        screen.rows = 10
        screen.server = "http://127.0.0.1:8080"
        return screen
    }

    static func text(_ row: [StatusBarScreen.Cell]) -> String {
        String(row.map(\.character))
    }

    static let shown = Overlay.sample(animation: nil)

    /// Fully shown: the background in every cell, the label centred in the middle row, the bar's
    /// 50 % as 40 full blocks in the bottom row, in the style's colours.
    @Test func shown() {
        let cells = Self.screen(Self.shown).cells()
        #expect(cells.count == 3)
        #expect(Self.text(cells[1]).trimmingCharacters(in: .whitespaces) == "Downloading")
        #expect(Self.text(cells[2]) == String(repeating: "█", count: 40) + String(repeating: " ", count: 40))
        let blue = TerminalColor(red: 0, green: 0x7A, blue: 0xFF)
        #expect(cells.allSatisfy { $0.allSatisfy { $0.background == blue && $0.foreground == .white } })
        let first = Self.text(cells[1]).firstIndex(of: "D")!
        #expect(Self.text(cells[1]).distance(from: Self.text(cells[1]).startIndex, to: first) == 34)
    }

    /// A pill: the icon before the title and the subtitle after it, in the one row, spread over the
    /// capsule's width (a terminal's cells are wider than the glyphs the server measured).
    @Test func pillWithSubtitleAndIcon() {
        var overlay = Self.shown
        overlay.presentation = .pill
        overlay.frame = Rect(x: 0, y: 0, width: 768, height: 73)
        overlay.pill = Overlay.Pill(frame: Rect(x: 254, y: 23, width: 260, height: 50), cornerRadius: 25)
        overlay.label = Overlay.Label(text: "Downloading", frame: Rect(x: 325, y: 32.5, width: 139, height: 16))
        overlay.subtitle = Overlay.Label(text: "a.zip", frame: Rect(x: 325, y: 49.5, width: 139, height: 14))
        overlay.accessory = Overlay.Accessory(kind: .icon, icon: "⬇", frame: Rect(x: 304, y: 40, width: 16, height: 16))
        overlay.progressBar = nil
        let row = Self.text(Self.screen(overlay).cells()[1])
        #expect(row.trimmingCharacters(in: .whitespaces) == "⬇ Downloading · a.zip")
        // The capsule spans columns 26 to 54 of 80: the 21 characters are centred in its 28.
        #expect(row.distance(from: row.startIndex, to: row.firstIndex(of: "⬇")!) == 29)
    }

    /// A rise (Hc = 20, the bar's three rows) a row at a time: at its start the outgoing text in
    /// the label's row; once e(f) passes 1/3 it is in the top row (the incoming one still below the
    /// bar); past 2/3 the outgoing one has left and the incoming one is in the bottom row; at rest
    /// the incoming one is in the middle.
    @Test func rise() {
        var overlay = Self.shown
        overlay.progressBar = nil
        overlay.label?.text = "Done"
        overlay.outgoing = Overlay.Label(text: "Downloading", frame: Rect(x: 30, y: 0, width: 708, height: 20))
        overlay.animation = Animation(
            property: .labelOffset, from: 20, to: 0, start: 1, duration: 0.6, curve: .easeInOut)
        func rows(at time: Double) -> [String] {
            overlay.now = time
            return Self.screen(overlay).cells().map { Self.text($0).trimmingCharacters(in: .whitespaces) }
        }
        /// The first millisecond of the rise at which e(f) passes `value`.
        func passing(_ value: Double) -> Double {
            (0..<600).map { 1 + Double($0) / 1000 }.first {
                Animation.Curve.easeInOut.value(at: ($0 - 1) / 0.6) > value
            }!
        }
        #expect(rows(at: 1) == ["", "Downloading", ""])
        #expect(rows(at: passing(1 / 3 + 0.01)) == ["Downloading", "", ""])
        #expect(rows(at: passing(2 / 3 + 0.01)) == ["", "", "Done"])
        #expect(rows(at: 1.6) == ["", "Done", ""])
    }

    /// A fraction of a column is an eighth block at the bar's tip.
    @Test func eighthBlocks() {
        var overlay = Self.shown
        overlay.progressBar?.frame.width = 768 * 0.2 + 768 / 80 * 0.5
        let row = Self.text(Self.screen(overlay).cells()[2])
        #expect(row.hasPrefix(String(repeating: "█", count: 16) + "▌ "))
    }

    /// Sliding in: halfway (contentOffset −10 of −20) only the lower rows show, at the top.
    @Test func slide() {
        var overlay = Self.shown
        overlay.contentOffset = -10
        let cells = Self.screen(overlay).cells()
        #expect(Self.text(cells[0]).hasPrefix("████"))
        #expect(cells[1].allSatisfy { $0.background == nil && $0.character == " " })
        #expect(cells[2].allSatisfy { $0.background == nil })
        overlay.contentOffset = -20
        #expect(Self.screen(overlay).cells().allSatisfy { $0.allSatisfy { $0.background == nil } })
    }

    /// Alpha blends the colours into black; at 0 nothing is drawn.
    @Test func alpha() {
        var overlay = Self.shown
        overlay.alpha = 0.5
        let cell = Self.screen(overlay).cells()[0][0]
        #expect(cell.background == TerminalColor(red: 0, green: 61, blue: 128))
        #expect(cell.foreground == TerminalColor(red: 128, green: 128, blue: 128))
        overlay.alpha = 0
        #expect(Self.screen(overlay).cells().allSatisfy { $0.allSatisfy { $0.background == nil } })
    }

    /// The spinner turns while `activity`; the text moves right to make room.
    @Test func spinner() {
        var overlay = Self.shown
        overlay.activity = true
        var screen = Self.screen(overlay)
        screen.spinnerFrame = 3
        #expect(screen.cells()[1][3].character == "⠸")
        screen.spinnerFrame = 13
        #expect(screen.cells()[1][3].character == "⠸")
        screen.spinnerFrame = 4
        #expect(screen.cells()[1][3].character == "⠼")
    }

    /// A text too long for the label ends with an ellipsis inside it.
    @Test func longText() {
        var overlay = Self.shown
        overlay.label?.text = String(repeating: "x", count: 200)
        let row = Self.text(Self.screen(overlay).cells()[1])
        #expect(row == "   " + String(repeating: "x", count: 73) + "…   ")
    }

    /// A bar in the label's row (position center) shows the text over it in reverse colours.
    @Test func centredBar() {
        var overlay = Self.shown
        overlay.progressBar?.position = .center
        overlay.progressBar?.frame.y = 9
        overlay.progressBar?.frame.width = 768
        let cells = Self.screen(overlay).cells()
        let d = cells[1].first { $0.character == "D" }!
        #expect(d.background == .white)
        #expect(cells[1][0].character == "█")
        #expect(cells[2].allSatisfy { $0.character == " " })
    }

    /// Hidden or not yet connected: no bar, and the status line says why.
    @Test func statusLine() {
        #expect(Self.screen(nil).cells().allSatisfy { $0.allSatisfy { $0 == StatusBarScreen.Cell() } })
        var screen = Self.screen(nil)
        screen.connection = .connecting
        #expect(screen.statusLine().hasPrefix("connecting to http://127.0.0.1:8080…"))
        screen.connection = .reconnecting("connection refused")
        #expect(screen.statusLine().hasPrefix("reconnecting… (connection refused)"))
        #expect(
            Self.screen(Self.shown).statusLine().hasPrefix(
                "default · v4 · showing · progress #1 · 50% · ipad portrait"))
        var waiting = Self.shown
        waiting.queued = 2
        waiting.scheduled = 3
        #expect(
            Self.screen(waiting).statusLine().hasPrefix(
                "default · v4 · showing · progress #1 · 50% · 2 queued · 3 scheduled · ipad"))
        screen.columns = 12
        #expect(screen.statusLine() == "reconnectin")
    }

    /// The message's actions' labels, as buttons after its kind (docs/MODEL.md §14); nothing of
    /// the announcement, and nothing for a message without actions.
    @Test func actionLabels() {
        var tapped = Self.shown
        tapped.message?.actions = [
            Message.Action(id: "retry", label: "Retry"), Message.Action(id: "mute", label: "Mute"),
        ]
        tapped.announcement = "Progress: Downloading, 50 percent"
        #expect(
            Self.screen(tapped).statusLine().hasPrefix(
                "default · v4 · showing · progress #1 · [Retry] [Mute] · 50% · ipad portrait"))
        #expect(!Self.screen(tapped).render().contains("percent"))
        tapped.message?.actions = []
        #expect(Self.screen(tapped).statusLine() == Self.screen(Self.shown).statusLine())
    }

    /// The escapes: 24-bit colours, or the palette's nearest; each row positioned; the status
    /// line dim on the last row.
    @Test func escapes() {
        let trueColor = Self.screen(Self.shown).render()
        #expect(trueColor.contains("\u{1B}[38;2;255;255;255;48;2;0;122;255m"))
        #expect(trueColor.contains("\u{1B}[1;1H"))
        #expect(trueColor.contains("\u{1B}[3;1H"))
        #expect(trueColor.contains("\u{1B}[10;1H\u{1B}[0;2mdefault · v4"))
        let palette = Self.screen(Self.shown, colors: .palette).render()
        #expect(palette.contains("\u{1B}[38;5;231;48;5;33m"))
        #expect(!palette.contains("38;2"))
    }

    /// The palette's nearest colours, as tmux picks them.
    @Test(arguments: [
        ("#FFFFFF", 231), ("#000000", 16), ("#007AFF", 33), ("#1C1C1E", 234), ("#34C759", 77), ("#FF3B30", 203),
        ("#F2F2F7", 255), ("#808080", 244),
    ])
    func palette(hex: String, index: Int) {
        #expect(TerminalColor(hex: hex)?.paletteIndex == index)
    }

    @Test func colourMode() {
        #expect(ColorMode(environment: ["COLORTERM": "truecolor"]) == .trueColor)
        #expect(ColorMode(environment: ["COLORTERM": "24bit"]) == .trueColor)
        #expect(ColorMode(environment: ["COLORTERM": "yes"]) == .palette)
        #expect(ColorMode(environment: [:]) == .palette)
        #expect(TerminalColor(hex: "#12345") == nil)
        #expect(TerminalColor(hex: "123456") == nil)
        #expect(TerminalColor(hex: "#GG0000") == nil)
    }
}

/// The command-line reader of `post` and `watch`.
@Suite("command-line arguments")
struct ArgumentsTests {
    @Test func forms() async throws {
        let arguments = try Arguments(
            ["--kind", "sent", "--progress=0.5", "-", "--immediate", "--", "--text"],
            options: ["--kind", "--progress"], switches: ["--immediate"])
        #expect(arguments["--kind"] == "sent")
        #expect(try arguments.number("--progress") == 0.5)
        #expect(arguments.has("--immediate"))
        #expect(arguments.operands == ["-", "--text"])
        #expect(try Arguments(["-h"], options: [], switches: []).has("--help"))
    }

    @Test(arguments: [["--kind", "a", "--kind", "b"], ["--nope"], ["--kind"], ["--flag=1"]])
    func refused(arguments: [String]) {
        #expect(throws: UsageError.self) {
            try Arguments(arguments, options: ["--kind"], switches: ["--flag"])
        }
    }

    @Test(arguments: ["nan", "inf", "1e999", "½", ""])
    func notANumber(text: String) async throws {
        let arguments = try Arguments(["--progress", text], options: ["--progress"], switches: [])
        #expect(throws: UsageError.self) { try arguments.number("--progress") }
    }
}
