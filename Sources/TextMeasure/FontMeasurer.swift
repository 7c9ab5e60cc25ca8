private import CHarfBuzz

#if canImport(Glibc)
    import Glibc
#endif

/// The width of a line of text in one font file, shaped by HarfBuzz as a renderer would set it:
/// kerning, ligatures, composed and decomposed accents, right-to-left scripts.
///
/// One measurer loads its file once and may be shared: `width(of:size:)` is safe to call from any
/// number of threads at once. HarfBuzz's user manual ("Object lifecycle management") makes a font
/// object thread-safe once it is set up and no longer changed, which `hb_font_make_immutable`
/// enforces; each call shapes into a buffer of its own (a buffer is never shared between threads),
/// as HarfBuzz's own test-multithread.c does with one font and thirty threads.
public final class FontMeasurer: Sendable {
    /// The Inter Regular that Debian's `fonts-inter` installs (also the one file the Docker image
    /// copies there). Inter is made for user interfaces at small sizes, like the overlay's text;
    /// the static Regular file, not a variable font, so that no variation axis (weight, optical
    /// size) has a default that a HarfBuzz version could read differently. Debian's package
    /// (4.0~beta7 in bookworm) ships only static files.
    public static let defaultFontPath = "/usr/share/fonts/opentype/inter/Inter-Regular.otf"

    /// The font's units per em (its `head` table): the grid its advances are counted in.
    public let unitsPerEm: Int

    // Immutable after init (hb_font_make_immutable), so sharing it between threads is safe: see the
    // type's comment. HarfBuzz counts its own references atomically; deinit drops ours.
    nonisolated(unsafe) private let font: OpaquePointer
    // The language every buffer is shaped in (see `width`): interned by HarfBuzz for the life of the
    // process, never freed, never changed.
    nonisolated(unsafe) private let language: OpaquePointer?

    /// Loads and parses the font file at `path` (the first face of a collection).
    ///
    /// - Throws: `FontLoadError` naming the path: nothing there, not readable, or not a font.
    public init(path: String) throws(FontLoadError) {
        // _or_fail answers NULL, not HarfBuzz's empty blob, when the file cannot be opened or read,
        // so that a missing font is an error at start-up rather than every width being 0.
        guard let blob = hb_blob_create_from_file_or_fail(path) else {
            throw FontLoadError(path: path, reason: Self.whyUnreadable(path))
        }
        guard hb_blob_get_length(blob) > 0 else {
            hb_blob_destroy(blob)
            throw FontLoadError(path: path, reason: .notAFont)
        }
        // The face keeps a reference to the blob, the font one to the face: ours go at once.
        let face = hb_face_create(blob, 0)
        hb_blob_destroy(blob)
        // HarfBuzz parses lazily and makes any file a face; a file that is no font has no glyph.
        guard hb_face_get_glyph_count(face) > 0 else {
            hb_face_destroy(face)
            throw FontLoadError(path: path, reason: .notAFont)
        }
        let upem = hb_face_get_upem(face)
        let font = hb_font_create(face)!
        hb_face_destroy(face)
        // HarfBuzz's default scale is already upem; set explicitly because the widths' definition
        // (advances in font units) depends on it.
        hb_font_set_scale(font, Int32(upem), Int32(upem))
        hb_font_make_immutable(font)
        self.font = font
        self.unitsPerEm = Int(upem)
        // A fixed language, not HarfBuzz's default: guessing it reads the process's locale with
        // setlocale, which is not thread-safe (HarfBuzz issue 1191) and would make a width depend on
        // LANG (Inter has Catalan and Romanian forms). English has no language system of its own in
        // Inter, so its default one is used, as for a text of unknown language.
        self.language = hb_language_from_string("en", -1)
    }

    deinit {
        hb_font_destroy(font)
    }

    /// The advance width of `text` set on one line in this font at `size` (in points, pixels or
    /// any unit: the answer is in the same unit), unrounded.
    ///
    /// HarfBuzz shapes the whole text as one run, with its script and direction guessed from the
    /// text, the font's default features and no others: the sum of the glyphs' horizontal advances
    /// in font units, × `size` ÷ `unitsPerEm`. A character the font has no glyph for (glyph 0,
    /// `.notdef`) counts as one em, whatever the font's `.notdef` advance: a fallback font would
    /// draw something there. Line breaks and tabs are not interpreted (the font decides what they
    /// are). The empty string is 0.
    ///
    /// A text of more than 2 GiB of UTF-8 traps (HarfBuzz counts in 32 bits).
    public func width(of text: String, size: Double) -> Double {
        if text.isEmpty { return 0 }
        let units = advanceUnits(of: text)
        // The same operations in the same order as scripts/text-fixtures, so that the test can
        // compare the Doubles for equality.
        return Double(units) * size / Double(unitsPerEm)
    }

    /// The sum of the shaped glyphs' advances in font units, glyph 0 counted as one em.
    private func advanceUnits(of text: String) -> Int {
        // A buffer of its own for every call: a buffer is written while shaping, so it cannot be
        // shared; creating one costs a small allocation (bench/text-measure).
        let buffer = hb_buffer_create()
        defer { hb_buffer_destroy(buffer) }
        var text = text
        text.withUTF8 { bytes in
            bytes.withMemoryRebound(to: CChar.self) { chars in
                let length = Int32(chars.count)
                hb_buffer_add_utf8(buffer, chars.baseAddress, length, 0, length)
            }
        }
        hb_buffer_set_language(buffer, language)
        hb_buffer_guess_segment_properties(buffer)
        hb_shape(font, buffer, nil, 0)
        // A buffer that could not grow shapes nothing; a width of 0 would be silently wrong.
        precondition(hb_buffer_allocation_successful(buffer) != 0, "HarfBuzz ran out of memory")
        var count: UInt32 = 0
        guard let infos = hb_buffer_get_glyph_infos(buffer, &count),
            let positions = hb_buffer_get_glyph_positions(buffer, nil)
        else { return 0 }
        var units = 0
        for index in 0..<Int(count) {
            // After shaping, `codepoint` holds the glyph id.
            units += infos[index].codepoint == 0 ? unitsPerEm : Int(positions[index].x_advance)
        }
        return units
    }

    /// Why HarfBuzz could not read the file, found by opening it ourselves: its error is only NULL.
    private static func whyUnreadable(_ path: String) -> FontLoadError.Reason {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            let error = errno
            if error == ENOENT || error == ENOTDIR { return .missing }
            return .unreadable(String(cString: strerror(error)))
        }
        defer { close(descriptor) }
        var info = stat()
        if fstat(descriptor, &info) == 0 {
            if info.st_mode & S_IFMT == S_IFDIR { return .unreadable("it is a folder") }
            if info.st_size == 0 { return .notAFont }
        }
        return .unreadable("HarfBuzz could not read it")
    }
}
