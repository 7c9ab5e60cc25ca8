import Testing

@testable import OverlayEngine

/// Taps and actions (MODEL §14), on the default iPad: an `info` message posted at 0 is shown
/// 0 → 0.25 and its 2.5 s end at 2.75. A tap is kept on the shown message (its last 10), makes a
/// version and carries itself in the changes for the event stream; it ends nothing.
@Suite("Taps and actions (§14)")
struct TapTests {
    static let actions = [
        MessageAction(id: "open", label: "Open", url: "https://example.com/a"),
        MessageAction(id: "later", label: "Later"),
    ]

    /// An engine with a message with two actions shown from 0 and, when `queued`, `b` behind it.
    static func engine(queued: Bool = false) throws -> OverlayEngine {
        var engine = makeEngine()
        var input = MessageInput.message("a")
        input.click = .some("https://example.com")
        input.actions = actions
        try engine.posted(input, at: .seconds(0))
        if queued { try engine.posted(.message("b"), at: .seconds(0)) }
        return engine
    }

    /// A tap on an action at 1 and one on the overlay at 1.5: each one version, kept in order on
    /// the message, carried in the changes with the message's id; the message goes on showing
    /// and ends at its own time.
    @Test func tapsAreKeptAndTold() throws {
        var engine = try Self.engine()
        let version = engine.at(1).version
        let first = engine.tap(action: "open", at: .seconds(1))
        let tapped = try first.value.get()
        #expect(tapped.taps == [Tap(at: .seconds(1), action: "open")])
        #expect(first.changes.tapped == MessageTap(message: 1, tap: Tap(at: .seconds(1), action: "open")))
        #expect(first.changes.messages == [1])
        #expect(engine.version == version + 1)

        let second = engine.tap(action: nil, at: .seconds(1.5))
        #expect(second.changes.tapped == MessageTap(message: 1, tap: Tap(at: .seconds(1.5))))
        #expect(engine.version == version + 2)
        let overlay = engine.at(1.5)
        #expect(overlay.message?.taps == [Tap(at: .seconds(1), action: "open"), Tap(at: .seconds(1.5))])
        #expect(overlay.message?.state == .showing)
        #expect(overlay.message?.deadline == .seconds(2.75))
        #expect(engine.at(2.75).message?.state == .done)
        // The ended message keeps its taps in the history.
        #expect(engine.message(id: 1)?.taps.count == 2)
    }

    /// Any number of taps keeps the newest 10, and the memory account follows them.
    @Test func theLastTenAreKept() throws {
        var engine = try Self.engine()
        let bytesBefore = engine.held.textBytes
        for step in 0..<1000 {
            _ = engine.tap(action: step.isMultiple(of: 2) ? "open" : nil, at: .seconds(1 + Double(step) * 0.001))
            let held = engine.held
            #expect(held.textBytes == engine.walked.textBytes)
            if held.textBytes != engine.walked.textBytes { return }
        }
        let taps = try #require(engine.current?.taps)
        #expect(taps.count == Tap.kept)
        #expect(taps.first?.at == .seconds(1.990))
        #expect(taps.last == Tap(at: .seconds(1.999)))
        // Ten taps: five with "open" (4 bytes) and five on the overlay, 8 bytes of time each.
        #expect(engine.held.textBytes == bytesBefore + 10 * 8 + 5 * 4)
    }

    /// Nothing to tap before a message, while the ended one hides and once hidden; an action the
    /// message does not have is refused naming `action`. No refusal changes anything.
    @Test func refusalsChangeNothing() throws {
        var fresh = makeEngine()
        let none = fresh.tap(action: nil, at: .zero)
        #expect(none.value == .failure(.nothingShown))
        #expect(none.changes.isEmpty && fresh.version == 0)

        var engine = try Self.engine()
        let before = engine.at(1)
        engine.advance(to: .seconds(1))
        for action in ["nope", "OPEN", "open ", ""] {
            let refused = engine.tap(action: action, at: .seconds(1))
            #expect(refused.value.refusedField == "action", "\(action)")
            #expect(refused.changes.isEmpty)
        }
        #expect(engine.at(1) == before)

        var plain = makeEngine()
        try plain.posted(.message("no actions"), at: .zero)
        #expect(plain.tap(action: "open", at: .seconds(1)).value.refusedField == "action")
        #expect(plain.current?.taps == [])

        let hiding = engine.at(2.8)
        #expect(hiding.phase == .hiding)
        #expect(engine.tap(action: nil, at: .seconds(2.8)).value == .failure(.nothingShown))
        #expect(engine.version == hiding.version)
        #expect(engine.tap(action: "open", at: .seconds(4)).value == .failure(.nothingShown))
    }

    /// A tap is on the shown message: during the show animation too, and on the one that
    /// replaced the first (whose taps stay its own).
    @Test func tapsFollowTheShownMessage() throws {
        var engine = try Self.engine(queued: true)
        #expect(try engine.tap(action: "later", at: .seconds(0.1)).value.get().id == 1)
        try engine.deleted(1, at: .seconds(1))
        let second = try engine.tap(action: nil, at: .seconds(1.2)).value.get()
        #expect(second.id == 2 && second.taps == [Tap(at: .seconds(1.2))])
        #expect(engine.message(id: 1)?.taps == [Tap(at: .seconds(0.1), action: "later")])
        #expect(engine.tap(action: "later", at: .seconds(1.3)).value.refusedField == "action")
    }

    /// A rollback (`exactly`) keeps the taps and the announcement's version; a restart keeps the
    /// taps of the message it shows again.
    @Test func storedTapsComeBack() throws {
        var engine = try Self.engine()
        _ = engine.tap(action: "open", at: .seconds(1))
        let state = engine.state
        let live = engine.liveMessages
        let exact = OverlayEngine.exactly(
            configuration: engine.configuration, state: state, live: live, history: [], devices: [:])
        #expect(exact == engine)
        let restarted = OverlayEngine.restored(
            configuration: engine.configuration, state: state, live: live, history: [], devices: [:]
        ).value
        #expect(restarted.current?.taps == [Tap(at: .seconds(1), action: "open")])
        #expect(restarted.current?.actions == Self.actions)
        #expect(restarted.current?.click == "https://example.com")
    }

    /// PATCH changes the reader's fields: new actions replace the old ones, an empty list and a
    /// null click remove them, and the taps stay.
    @Test func patchingTheReadersFields() throws {
        var engine = try Self.engine()
        _ = engine.tap(action: "open", at: .seconds(1))
        var change = MessageInput()
        change.actions = [MessageAction(id: "undo", label: "  Undo  ")]
        change.accessibilityLabel = .some("Photo sent, undo available")
        let changed = try engine.patched(1, change, at: .seconds(1.5))
        #expect(changed.actions == [MessageAction(id: "undo", label: "Undo")])
        #expect(changed.accessibilityLabel == "Photo sent, undo available")
        #expect(changed.taps == [Tap(at: .seconds(1), action: "open")])
        #expect(try engine.tap(action: "undo", at: .seconds(1.6)).value.get().taps.count == 2)

        var removal = MessageInput()
        removal.actions = []
        removal.click = .some(nil)
        removal.accessibilityLabel = .some(nil)
        let removed = try engine.patched(1, removal, at: .seconds(2))
        #expect(removed.actions.isEmpty && removed.click == nil && removed.accessibilityLabel == nil)
        let version = engine.version
        // The same again changes nothing, not even the version.
        try engine.patched(1, removal, at: .seconds(2))
        #expect(engine.version == version)
    }
}
