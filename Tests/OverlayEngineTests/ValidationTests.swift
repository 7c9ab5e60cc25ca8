import Testing

@testable import OverlayEngine

/// One refused input and the field it must be refused for.
struct InvalidCase: Sendable, CustomTestStringConvertible {
    var name: String
    var input: MessageInput
    var field: String
    var testDescription: String { name }
}

/// The ranges of MODEL §2: text 1–256 characters after trimming, progress 0…1, duration > 0 and
/// ≤ 3600, key 1–128 characters.
let invalidInputs: [InvalidCase] = [
    InvalidCase(name: "empty text", input: .message(""), field: "text"),
    InvalidCase(name: "white-space text", input: .message(" \t\n  "), field: "text"),
    InvalidCase(name: "257 characters", input: .message(String(repeating: "x", count: 257)), field: "text"),
    InvalidCase(
        name: "257 characters after trimming", input: .message("  " + String(repeating: "é", count: 257) + "  "),
        field: "text"),
    InvalidCase(name: "progress below 0", input: .message("a", progress: -0.1), field: "progress"),
    InvalidCase(name: "progress above 1", input: .message("a", progress: 1.1), field: "progress"),
    InvalidCase(name: "progress NaN", input: .message("a", progress: .nan), field: "progress"),
    InvalidCase(name: "duration 0", input: .message("a", duration: 0), field: "duration"),
    InvalidCase(name: "negative duration", input: .message("a", duration: -1), field: "duration"),
    InvalidCase(name: "duration over 3600", input: .message("a", duration: 3600.001), field: "duration"),
    InvalidCase(name: "infinite duration", input: .message("a", duration: .infinity), field: "duration"),
    InvalidCase(name: "NaN duration", input: .message("a", duration: .nan), field: "duration"),
    InvalidCase(name: "empty key", input: .message("a", key: ""), field: "key"),
    InvalidCase(name: "129-character key", input: .message("a", key: String(repeating: "k", count: 129)), field: "key"),
]

@Suite("Validation (MODEL §2)")
struct ValidationTests {
    /// A POST out of range is refused for its field and leaves version, queue and ids unchanged.
    @Test(arguments: invalidInputs)
    func refusedPost(_ invalid: InvalidCase) throws {
        var engine = makeEngine()
        try engine.posted(.message("shown"), at: .seconds(0))
        try engine.posted(.message("waiting"), at: .seconds(0))
        let refused = engine.post(invalid.input, at: .seconds(0)).value
        #expect(refused.refusedField == invalid.field)
        #expect(engine.version == 2)
        #expect(engine.queue.map(\.id) == [2])
        #expect(engine.nextID == 3)
    }

    /// A PATCH out of range is refused for its field and leaves version and message unchanged.
    @Test(arguments: invalidInputs.filter { $0.field != "key" })
    func refusedPatch(_ invalid: InvalidCase) throws {
        var engine = makeEngine()
        try engine.posted(.message("shown"), at: .seconds(0))
        try engine.posted(.message("waiting"), at: .seconds(0))
        let before = engine.queue
        let refusedShown = engine.update(id: 1, with: invalid.input, at: .seconds(0)).value
        let refusedQueued = engine.update(id: 2, with: invalid.input, at: .seconds(0)).value
        #expect(refusedShown.refusedField == invalid.field)
        #expect(refusedQueued.refusedField == invalid.field)
        #expect(engine.version == 2)
        #expect(engine.queue == before)
        #expect(engine.current?.text == "shown")
    }

    /// A new message needs a text.
    @Test func textRequired() {
        var engine = makeEngine()
        let refused = engine.post(MessageInput(kind: .sent), at: .seconds(0)).value
        #expect(refused.refusedField == "text")
        #expect(engine.version == 0)
        #expect(engine.phase == .hidden)
    }

    /// A new progress message with an explicit null progress is refused (docs/BEHAVIOUR.md).
    @Test func progressMessageNeedsProgress() {
        var engine = makeEngine()
        let refused = engine.post(.message("Downloading", kind: .progress, progress: .some(nil)), at: .seconds(0)).value
        #expect(refused.refusedField == "progress")
        #expect(engine.version == 0)
    }

    /// The ends of each range are accepted: 1 and 256 characters (counted as characters), progress 0
    /// and 1, duration 3600 and a nanosecond, keys of 1 and 128 characters.
    @Test func rangeEndsAccepted() throws {
        var engine = makeEngine()
        let accepted: [MessageInput] = [
            .message("x"),
            .message(String(repeating: "x", count: 256)),
            .message(String(repeating: "e\u{301}", count: 256)),
            .message("👩‍👩‍👧‍👦"),
            .message("a", progress: 0),
            .message("a", progress: 1),
            .message("a", duration: 3600),
            .message("a", duration: 0.000_000_001),
            .message("a", key: "k"),
            .message("a", key: String(repeating: "k", count: 128)),
        ]
        for input in accepted {
            let result = engine.post(input, at: .seconds(0)).value
            #expect(result.map(\.message.id) == .success(engine.nextID - 1), "\(input)")
        }
        #expect(engine.liveMessages.count == accepted.count)
    }

    /// Text is stored trimmed of surrounding spaces, tabs and newlines; inner white space stays.
    @Test func textTrimmed() throws {
        var engine = makeEngine()
        let message = try engine.posted(.message(" \t Upload  done \n"), at: .seconds(0))
        #expect(message.text == "Upload  done")
        #expect(engine.overlay(at: .seconds(0)).label?.text == "Upload  done")
    }
}
