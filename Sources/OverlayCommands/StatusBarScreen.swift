import OverlayClientCore

/// One screen of `overlayd watch`: the overlay at one instant drawn as a bar of three rows across
/// the top of the terminal (the bar's own space scaled to the width), and a status line at the
/// bottom. Pure: the same input gives the same bytes, so tests can check every escape.
///
/// The middle row holds the label (and the spinner); the progress bar is a row of block
/// characters, with eighth blocks at its tip, on the row its position gives (bottom: the last).
/// contentOffset slides the rows up out of the screen; alpha blends every colour into the
/// terminal's black. A rise moves the texts a row at a time.
struct StatusBarScreen: Hashable, Sendable {
    enum Connection: Hashable, Sendable {
        case connecting
        case connected
        case reconnecting(String)
    }

    /// One character cell; nil colours are the terminal's own.
    struct Cell: Hashable, Sendable {
        var character: Character = " "
        var foreground: TerminalColor?
        var background: TerminalColor?
    }

    static let barRows = 3
    static let spinner: [Character] = ["⠋", "⠙", "⠹", "⠸", "⠼", "⠴", "⠦", "⠧", "⠇", "⠏"]
    static let eighths: [Character] = ["▏", "▎", "▍", "▌", "▋", "▊", "▉"]
    static let block: Character = "█"

    /// The overlay at the instant drawn, once one arrived.
    var overlay: Overlay?
    var connection: Connection = .connecting
    var channel = "default"
    var server = ""
    var colors: ColorMode = .palette
    var columns = 80
    var rows = 24
    var spinnerFrame = 0

    /// The bar's rows, as they are on screen.
    func cells() -> [[Cell]] {
        let blank = [[Cell]](repeating: [Cell](repeating: Cell(), count: max(columns, 0)), count: Self.barRows)
        guard let overlay, overlay.phase != .hidden, overlay.alpha > 0, let label = overlay.label, columns > 0 else {
            return blank
        }
        // The window's height Hw and the bar's length L, from its frame in screen space: the
        // label's own height and inset only describe a status-bar window.
        let sideways = abs(overlay.rotation) == 90
        let height = sideways ? overlay.frame.width : overlay.frame.height
        let length = sideways ? overlay.frame.height : overlay.frame.width
        guard height > 0, length > 0 else { return blank }
        let scale = Double(columns) / length
        let background = TerminalColor(hex: overlay.style?.background ?? "")?.blended(overlay.alpha)
        let foreground = TerminalColor(hex: overlay.style?.foreground ?? "")?.blended(overlay.alpha)
        let plain = Cell(character: " ", foreground: foreground ?? .white, background: background ?? .black)
        var content = [[Cell]](repeating: [Cell](repeating: plain, count: columns), count: Self.barRows)
        var filled = Set<Int>()

        let labelRow = Self.barRows / 2
        var progressRow: Int?
        if let bar = overlay.progressBar {
            let row = Int(((bar.frame.y - overlay.contentOffset) / height * Double(Self.barRows)).rounded(.down))
            let barRow = min(max(row, 0), Self.barRows - 1)
            progressRow = barRow
            let start = min(max(Int((bar.frame.x * scale).rounded()), 0), columns)
            let width = max(bar.frame.width * scale, 0)
            let whole = min(Int(width), columns - start)
            for column in start..<start + whole {
                content[barRow][column].character = Self.block
                filled.insert(column)
            }
            let eighths = Int(((width - Double(Int(width))) * 8).rounded(.down))
            if eighths > 0, start + whole < columns {
                content[barRow][start + whole].character = Self.eighths[eighths - 1]
            }
        }

        // In a pill the text may take the capsule's width: a terminal's cells are wider than the
        // measured glyphs.
        let span = overlay.pill?.frame ?? label.frame
        let left = min(max(Int((span.x * scale).rounded()), 0), columns)
        let right = min(max(Int(((span.x + span.width) * scale).rounded()), left), columns)
        var textStart = left
        if overlay.activity, left < right {
            content[labelRow][left].character = Self.spinner[spinnerFrame % Self.spinner.count]
            textStart = min(left + 2, right)
        }
        let available = right - textStart
        func write(_ line: String, row: Int) {
            guard (0..<Self.barRows).contains(row) else { return }
            var text = Array(line.map { $0.isNewline ? " " : $0 })
            if text.count > available { text = available > 0 ? Array(text.prefix(available - 1)) + ["…"] : [] }
            let start = textStart + (available - text.count) / 2
            for (offset, character) in text.enumerated() {
                var cell = content[row][start + offset]
                // Text over the filled bar (a bar in its row) is drawn in reverse, to stay legible.
                if progressRow == row, filled.contains(start + offset) {
                    swap(&cell.foreground, &cell.background)
                }
                cell.character = character
                content[row][start + offset] = cell
            }
        }
        // One row holds the title, the subtitle after it and the icon before it.
        var line = label.text
        if let subtitle = overlay.subtitle?.text { line += " · " + subtitle }
        if overlay.accessory?.kind == .icon, let icon = overlay.accessory?.icon { line = icon + " " + line }
        // During a rise the incoming text comes up from below the bar while the outgoing one
        // leaves at the top: the content area's height Hc is the bar's rows.
        var rise = 0
        if let animation = overlay.animation, animation.property == .labelOffset, animation.from > 0,
            let outgoing = overlay.outgoing
        {
            rise = Int((animation.value(at: overlay.now) / animation.from * Double(Self.barRows)).rounded())
            write(outgoing.text, row: labelRow + rise - Self.barRows)
        }
        write(line, row: labelRow + rise)

        var screen = blank
        let shift = Int((overlay.contentOffset / height * Double(Self.barRows)).rounded())
        for row in 0..<Self.barRows where (0..<Self.barRows).contains(row - shift) {
            screen[row] = content[row - shift]
        }
        return screen
    }

    /// The status line: what the overlay is doing, or the connection's trouble.
    func statusLine() -> String {
        let text: String
        switch connection {
        case .connecting:
            text = "connecting to \(server)…"
        case .reconnecting(let reason):
            text = "reconnecting… (\(reason))"
        case .connected:
            if let overlay {
                var parts = [channel, "v\(overlay.version)", overlay.phase.rawValue]
                if let message = overlay.message { parts.append("\(message.kind) #\(message.id)") }
                if let actions = overlay.message?.actionLabels { parts.append(actions) }
                if let progress = overlay.progressBar?.progress { parts.append("\(Int((progress * 100).rounded()))%") }
                if overlay.queued > 0 { parts.append("\(overlay.queued) queued") }
                if let scheduled = overlay.scheduled, scheduled > 0 { parts.append("\(scheduled) scheduled") }
                parts.append("\(overlay.device) \(overlay.orientation)")
                text = parts.joined(separator: " · ")
            } else {
                text = "connected to \(server)"
            }
        }
        let line = text + "   Ctrl-C quits"
        return String(line.prefix(max(columns - 1, 0)))
    }

    /// The whole screen: each row positioned and drawn in full, so no earlier frame shows through.
    func render() -> String {
        var output = ""
        let grid = cells()
        for row in 0..<min(Self.barRows, rows) {
            output += "\u{1B}[\(row + 1);1H" + draw(grid[row])
        }
        if rows > Self.barRows + 1 {
            for row in Self.barRows..<(rows - 1) {
                output += "\u{1B}[\(row + 1);1H\u{1B}[0m\u{1B}[K"
            }
        }
        if rows > Self.barRows {
            output += "\u{1B}[\(rows);1H\u{1B}[0;2m" + statusLine() + "\u{1B}[0m\u{1B}[K"
        }
        return output
    }

    private func draw(_ cells: [Cell]) -> String {
        var output = "\u{1B}[0m"
        var current: (TerminalColor?, TerminalColor?) = (nil, nil)
        for cell in cells {
            if cell.foreground != current.0 || cell.background != current.1 {
                current = (cell.foreground, cell.background)
                if cell.foreground == nil && cell.background == nil {
                    output += "\u{1B}[0m"
                } else {
                    output += colors.escape(
                        foreground: cell.foreground ?? .white, background: cell.background ?? .black)
                }
            }
            output.append(cell.character)
        }
        return output + "\u{1B}[0m"
    }
}

extension Message {
    /// The actions' labels as buttons, `[Open] [Later]`; nil without actions.
    var actionLabels: String? {
        guard let actions, !actions.isEmpty else { return nil }
        return actions.map { "[\($0.label)]" }.joined(separator: " ")
    }
}
