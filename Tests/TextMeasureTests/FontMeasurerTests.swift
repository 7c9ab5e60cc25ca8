import Foundation
import Platform
import TestSupport
import Testing
import TextMeasure

/// Widths against Fixtures/inter-widths.json, which Python's uharfbuzz (another HarfBuzz build)
/// computed on the same font file by the same definition (scripts/text-fixtures).
///
/// The widths are compared for exact equality, not within a tolerance: each is an integer sum of
/// advances × size ÷ upem, done in the same Double operations in the same order on both sides, and
/// Python writes the shortest decimal that reads back as the same Double. Any difference is then a
/// different shaping (another glyph, advance or kerning), never rounding.
@Suite("Text widths from HarfBuzz")
struct FontMeasurerTests {
    struct Fixture: Decodable {
        struct Font: Decodable {
            let path: String
            let sha256: String
            let bytes: Int
            let unitsPerEm: Int
        }
        struct Entry: Decodable {
            let name: String
            let text: String
            let units: Int
            let widths: [Double]
        }
        let harfbuzz: String
        let font: Font
        let sizes: [Double]
        let texts: [Entry]
    }

    static let fixturePath = Repository.path("Tests/TextMeasureTests/Fixtures/inter-widths.json")

    static func fixture() throws -> Fixture {
        let data = try Data(contentsOf: URL(fileURLWithPath: fixturePath))
        return try JSONDecoder().decode(Fixture.self, from: data)
    }

    /// The fixture, after checking that the font on this machine is the file it was computed on.
    static func checkedFixture() throws -> Fixture {
        let fixture = try fixture()
        let path = fixture.font.path
        let bytes = try #require(
            FileManager.default.contents(atPath: path),
            "no font at \(path): install it (scripts/setup, or apt-get install fonts-inter)")
        let rerun =
            "the font file \(path) is not the one the fixture was computed on: run scripts/text-fixtures and commit"
        try #require(bytes.count == fixture.font.bytes, "\(rerun) (\(bytes.count) bytes, not \(fixture.font.bytes))")
        try #require(SHA256.hex([UInt8](bytes)) == fixture.font.sha256, "\(rerun) (SHA-256 differs)")
        return fixture
    }

    @Test("the default font is the fixture's, and its upem is the fixture's")
    func defaultFont() throws {
        let fixture = try Self.checkedFixture()
        #expect(fixture.font.path == FontMeasurer.defaultFontPath)
        let measurer = try FontMeasurer(path: FontMeasurer.defaultFontPath)
        #expect(measurer.unitsPerEm == fixture.font.unitsPerEm)
    }

    @Test("every width equals uharfbuzz's, at every size")
    func widthsMatchFixture() throws {
        let fixture = try Self.checkedFixture()
        let measurer = try FontMeasurer(path: fixture.font.path)
        #expect(fixture.texts.count >= 30)
        for entry in fixture.texts {
            for (size, expected) in zip(fixture.sizes, entry.widths) {
                #expect(
                    measurer.width(of: entry.text, size: size) == expected,
                    "\(entry.name) at \(size): HarfBuzz \(fixture.harfbuzz) gave \(expected)")
            }
            // At size = upem the width is the sum in font units itself.
            #expect(
                measurer.width(of: entry.text, size: Double(measurer.unitsPerEm)) == Double(entry.units),
                "\(entry.name): \(entry.units) font units")
        }
    }

    @Test("what the fixture's texts show: kerning, normalization, one em per missing glyph, empty is 0")
    func definition() throws {
        let measurer = try FontMeasurer(path: FontMeasurer.defaultFontPath)
        let em = Double(measurer.unitsPerEm)
        // Kerning: "To" is narrower than "T" and "o" set apart.
        #expect(
            measurer.width(of: "To", size: em) < measurer.width(of: "T", size: em) + measurer.width(of: "o", size: em))
        // A decomposed é is normalized to the composed glyph.
        #expect(measurer.width(of: "e\u{301}", size: 13) == measurer.width(of: "\u{e9}", size: 13))
        // Inter has no CJK: each character is glyph 0, one em.
        #expect(measurer.width(of: "\u{4f60}\u{597d}", size: 13) == 26)
        #expect(measurer.width(of: "", size: 13) == 0)
        #expect(measurer.width(of: "Sent", size: 0) == 0)
    }

    @Test("a missing file is an error that names the path")
    func missingFile() throws {
        let directory = try TemporaryDirectory()
        let path = directory.path + "/no-such-font.otf"
        let error = #expect(throws: FontLoadError.self) { try FontMeasurer(path: path) }
        #expect(error?.path == path)
        #expect(error?.reason == .missing)
        #expect(error?.description.contains(path) == true)
        #expect(error?.description.contains("no such file") == true)
    }

    @Test("a file that is no font, an empty file and a folder are errors")
    func notAFont() throws {
        let directory = try TemporaryDirectory()
        let text = try directory.write("notes.txt", "This is a text file, not a font.\n")
        let textError = #expect(throws: FontLoadError.self) { try FontMeasurer(path: text) }
        #expect(textError?.reason == .notAFont)
        #expect(textError?.description.contains(text) == true)
        #expect(textError?.description.contains("not a font") == true)

        let empty = try directory.write("empty.otf", "")
        let emptyError = #expect(throws: FontLoadError.self) { try FontMeasurer(path: empty) }
        #expect(emptyError?.reason == .notAFont)

        let folderError = #expect(throws: FontLoadError.self) { try FontMeasurer(path: directory.path) }
        #expect(folderError?.path == directory.path)
        if case .unreadable = folderError?.reason {
        } else {
            Issue.record("a folder: \(String(describing: folderError))")
        }
    }

    @Test("one measurer shared by eight threads at once gives the single-thread widths")
    func concurrentWidths() throws {
        let fixture = try Self.checkedFixture()
        let measurer = try FontMeasurer(path: fixture.font.path)
        let texts = fixture.texts.map(\.text)
        let sizes = fixture.sizes
        let expected = texts.map { text in sizes.map { measurer.width(of: text, size: $0) } }
        let mismatches = Lock<[String]>([])
        // Real threads (not the cooperative pool, which has two on this machine), each measuring
        // every text many times, so that shaping calls overlap; nothing waits on a clock.
        onThreads(8) { thread in
            for _ in 0..<25 {
                for (index, text) in texts.enumerated() {
                    let widths = sizes.map { measurer.width(of: text, size: $0) }
                    if widths != expected[index] {
                        mismatches.withLock { $0.append("thread \(thread): \(fixture.texts[index].name) \(widths)") }
                    }
                }
            }
        }
        #expect(mismatches.withLock { $0 } == [])
    }
}
