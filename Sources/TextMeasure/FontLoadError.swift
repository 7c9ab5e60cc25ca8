/// Why a font file could not be loaded for measuring: the file and what to do about it.
public struct FontLoadError: Error, CustomStringConvertible, Equatable {
    /// What went wrong with the file.
    public enum Reason: Sendable, Equatable {
        /// Nothing is at the path (or a folder on the way to it is missing).
        case missing
        /// Something is there, but it cannot be read: the system's words for why (permission
        /// denied, a folder, ...).
        case unreadable(String)
        /// The file was read, but HarfBuzz finds no glyph in it: it is empty or not an OpenType or
        /// TrueType font.
        case notAFont
    }

    /// The path as it was given to `FontMeasurer(path:)`.
    public let path: String
    /// What went wrong.
    public let reason: Reason

    /// An error for the font file at `path`.
    public init(path: String, reason: Reason) {
        self.path = path
        self.reason = reason
    }

    /// One line naming the file and what to do: the message a person reads in a log or at start-up.
    public var description: String {
        switch reason {
        case .missing:
            return "font file \(path): no such file (give the path of an OpenType or TrueType font; "
                + "the default one comes with Debian's fonts-inter package)"
        case .unreadable(let why):
            return "font file \(path): cannot be read: \(why)"
        case .notAFont:
            return "font file \(path): not a font (empty, or not OpenType or TrueType: HarfBuzz finds no glyph in it)"
        }
    }
}
