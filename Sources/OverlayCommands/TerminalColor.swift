/// A colour as the overlay gives it (`#RRGGBB`) and as the terminal is told it.
struct TerminalColor: Hashable, Sendable {
    var red: UInt8
    var green: UInt8
    var blue: UInt8

    static let black = TerminalColor(red: 0, green: 0, blue: 0)
    static let white = TerminalColor(red: 255, green: 255, blue: 255)

    init(red: UInt8, green: UInt8, blue: UInt8) {
        self.red = red
        self.green = green
        self.blue = blue
    }

    /// `#RRGGBB`, or nil.
    init?(hex: String) {
        let digits = Array(hex.utf8)
        guard digits.count == 7, digits[0] == UInt8(ascii: "#"),
            let value = UInt32(String(decoding: digits[1...], as: UTF8.self), radix: 16)
        else { return nil }
        self.init(red: UInt8(value >> 16 & 0xFF), green: UInt8(value >> 8 & 0xFF), blue: UInt8(value & 0xFF))
    }

    /// This colour at `alpha` over `background`: how a translucent overlay looks.
    func blended(_ alpha: Double, over background: TerminalColor = .black) -> TerminalColor {
        let a = min(max(alpha, 0), 1)
        func mix(_ top: UInt8, _ bottom: UInt8) -> UInt8 {
            UInt8((Double(top) * a + Double(bottom) * (1 - a)).rounded())
        }
        return TerminalColor(
            red: mix(red, background.red), green: mix(green, background.green), blue: mix(blue, background.blue))
    }

    /// The nearest of the 256-colour palette's 6×6×6 cube and 24 greys (as tmux chooses).
    var paletteIndex: Int {
        let levels = [0, 0x5F, 0x87, 0xAF, 0xD7, 0xFF]
        func cube(_ value: UInt8) -> Int {
            value < 48 ? 0 : value < 114 ? 1 : (Int(value) - 35) / 40
        }
        let (r, g, b) = (cube(red), cube(green), cube(blue))
        let cubeColor = (levels[r], levels[g], levels[b])
        let average = (Int(red) + Int(green) + Int(blue)) / 3
        let grey = average > 238 ? 23 : max(average - 3, 0) / 10
        let greyLevel = 8 + 10 * grey
        func distance(_ other: (Int, Int, Int)) -> Int {
            let (dr, dg, db) = (Int(red) - other.0, Int(green) - other.1, Int(blue) - other.2)
            return dr * dr + dg * dg + db * db
        }
        if cubeColor == (Int(red), Int(green), Int(blue)) { return 16 + 36 * r + 6 * g + b }
        return distance((greyLevel, greyLevel, greyLevel)) < distance(cubeColor) ? 232 + grey : 16 + 36 * r + 6 * g + b
    }
}

/// How colours are written: 24-bit where the terminal says it takes them (`COLORTERM`), else
/// the 256-colour palette every terminal emulator in use has.
enum ColorMode: Hashable, Sendable {
    case trueColor
    case palette

    init(environment: [String: String]) {
        let value = environment["COLORTERM"]?.lowercased() ?? ""
        self = value == "truecolor" || value == "24bit" ? .trueColor : .palette
    }

    /// The select-graphic-rendition escape for these colours.
    func escape(foreground: TerminalColor, background: TerminalColor) -> String {
        switch self {
        case .trueColor:
            "\u{1B}[38;2;\(foreground.red);\(foreground.green);\(foreground.blue);"
                + "48;2;\(background.red);\(background.green);\(background.blue)m"
        case .palette:
            "\u{1B}[38;5;\(foreground.paletteIndex);48;5;\(background.paletteIndex)m"
        }
    }
}
