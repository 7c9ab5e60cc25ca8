#if canImport(Glibc)
    import Glibc
    let systemWrite = Glibc.write
    let systemRead = Glibc.read
#elseif canImport(Darwin)
    import Darwin
    let systemWrite = Darwin.write
    let systemRead = Darwin.read
#endif

/// The terminal `watch` draws on: its size, and a full-screen mode entered and left whole.
///
/// Entering switches to the alternate screen (so the shell's screen comes back untouched), hides
/// the cursor and turns off echo and line buffering (typed keys would smear the drawing), keeping
/// Ctrl-C a signal; leaving undoes each of them.
final class Terminal {
    private var saved: termios?

    /// Whether standard output is a terminal (else `watch` prints lines).
    static var isTerminal: Bool { isatty(1) == 1 }

    /// Columns and rows; 80 × 24 where the terminal does not say.
    static func size() -> (columns: Int, rows: Int) {
        var size = winsize()
        if ioctl(1, UInt(TIOCGWINSZ), &size) == 0, size.ws_col > 0, size.ws_row > 0 {
            return (Int(size.ws_col), Int(size.ws_row))
        }
        return (80, 24)
    }

    func enter() {
        var settings = termios()
        if isatty(0) == 1, tcgetattr(0, &settings) == 0 {
            saved = settings
            settings.c_lflag &= ~tcflag_t(ECHO | ICANON)
            tcsetattr(0, TCSANOW, &settings)
        }
        Output.write(1, "\u{1B}[?1049h\u{1B}[?25l\u{1B}[0m\u{1B}[2J")
    }

    func leave() {
        Output.write(1, "\u{1B}[0m\u{1B}[2J\u{1B}[?25h\u{1B}[?1049l")
        if var saved {
            tcsetattr(0, TCSANOW, &saved)
            self.saved = nil
        }
    }
}
