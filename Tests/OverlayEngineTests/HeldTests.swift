import TestSupport
import Testing

@testable import OverlayEngine

/// `OverlayEngine.held`: the count and string bytes of every message the engine holds, kept by
/// its containers as messages come and go, must equal a walk over them after any event.
@Suite("Held messages")
struct HeldTests {
    static let texts = ["a", "Sending…", "é", "😀😀", "Uploading the report", "x \u{301}"]

    /// Two thousand events of every kind (taps among them, which a message keeps and takes with it
    /// into the queue or the history), with a history of 5 so that messages are forgotten.
    @Test(arguments: [1, 2, 3] as [UInt64])
    func followsEveryEvent(seed: UInt64) throws {
        var engine = makeEngine { $0.historySize = 5 }
        // A fixed seed: the same steps every run.
        var generator = SplitMix(seed: seed)
        func random(_ bound: Int) -> Int { Int.random(in: 0..<bound, using: &generator) }
        var time = 0.0
        for step in 0..<2000 {
            time += Double(random(8)) * 0.1
            let now = Instant.seconds(time)
            let text = Self.texts[random(Self.texts.count)]
            let id = Int64(1 + random(Int(engine.nextID)))
            switch random(10) {
            case 0, 1:
                var input = MessageInput.message(text, subtitle: random(2) == 0 ? nil : text)
                // The reader's fields count too (MODEL §14): a click, actions, a label.
                if random(3) == 0 {
                    input.click = .some("https://example.com/\(text.count)")
                    input.actions = [
                        MessageAction(id: "a", label: text), MessageAction(id: "b", label: "B", url: "x:y"),
                    ]
                    input.accessibilityLabel = .some(text)
                }
                _ = engine.post(input, at: now)
            case 2:
                _ = engine.post(.message(text, kind: .progress, progress: 0.5, key: "k\(random(3))"), at: now)
            case 3:
                _ = engine.post(MessageInput(text: text, delay: .seconds(Double(random(5)))), at: now)
            case 4:
                _ = engine.update(id: id, with: MessageInput(text: text, icon: .some("★")), at: now)
            case 5: _ = engine.delete(id: id, at: now)
            case 6: _ = engine.dismiss(at: now)
            case 7: _ = engine.post(.message(text, immediate: true), at: now)
            case 8: _ = engine.tap(action: ["a", "b", nil][random(3)], at: now)
            default: engine.advance(to: now)
            }
            let held = engine.held
            let walked = engine.walked
            #expect(held.messages == walked.messages && held.textBytes == walked.textBytes, "step \(step)")
            if held.messages != walked.messages || held.textBytes != walked.textBytes { return }
        }
    }

    /// While the overlay hides, the shown message has ended and sits in the history: it counts once.
    @Test func anEndedShownMessageCountsOnce() throws {
        var engine = makeEngine()
        try engine.posted(.message("bye", duration: 1), at: .zero)
        engine.advance(to: .seconds(1.3))
        #expect(engine.phase == .hiding && engine.current?.state == .done)
        #expect(engine.held.messages == 1 && engine.held.textBytes == 3)
        #expect(engine.walked == (1, 3))
    }

    /// A restored engine counts what it was given, and a message's strings count in bytes.
    @Test func restoredAndCountedInBytes() throws {
        var engine = makeEngine()
        try engine.posted(.message("é", subtitle: "😀", icon: "★", key: "k"), at: .seconds(0))
        #expect(engine.held.messages == 1 && engine.held.textBytes == 2 + 4 + 3 + 1)
        try engine.posted(.message("queued"), at: .seconds(0))
        let restored = OverlayEngine.restored(
            configuration: EngineConfiguration(), state: engine.state, live: Array(engine.queue) + [engine.current!],
            history: [], devices: [:]
        ).value
        #expect(restored.held.messages == 2 && restored.held.textBytes == 10 + 6)
        #expect(restored.walked == (2, 16))
    }
}
