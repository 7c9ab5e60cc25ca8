import Testing

@testable import OverlayEngine
@testable import OverlayStore

/// The store holds the whole engine: after any run of events, each followed by its record, the
/// engine read back with `OverlayEngine.exactly` and brought to the same time is equal to the
/// running one, field for field. A commit that fails is undone by reading back what the database
/// holds; a field the store missed would make that read differ from what was there.
@Suite("Exact restore")
struct ExactRestoreTests {
    static let devices = Dictionary(uniqueKeysWithValues: DeviceProfile.builtIn.map { ($0.name, $0) })

    /// The fields in which two engines differ, for a failure message that says where.
    static func differences(_ a: OverlayEngine, _ b: OverlayEngine) -> [String] {
        var found: [String] = []
        func check<T: Equatable>(_ name: String, _ x: T, _ y: T) {
            if x != y { found.append("\(name): \(x) ≠ \(y)") }
        }
        check("version", a.version, b.version)
        check("now", a.now, b.now)
        check("device", a.device, b.device)
        check("orientation", a.orientation, b.orientation)
        check("rotationTarget", a.rotationTarget, b.rotationTarget)
        check("phase", a.phase, b.phase)
        check("transition", a.transition, b.transition)
        check("current", a.current, b.current)
        check("queue", Array(a.queue), Array(b.queue))
        check("history", a.history.map(\.id), b.history.map(\.id))
        check("history messages", Array(a.history), Array(b.history))
        check("liveKeys", a.liveKeys, b.liveKeys)
        check("nextID", a.nextID, b.nextID)
        check("headOrder", a.headOrder, b.headOrder)
        check("tailOrder", a.tailOrder, b.tailOrder)
        return found
    }

    @Test(arguments: [1, 2, 3, 4] as [UInt64])
    func storeHoldsTheWholeEngine(seed: UInt64) throws {
        var generator = SeededGenerator(seed: seed)
        var configuration = EngineConfiguration()
        configuration.historySize = Int.random(in: 0...4, using: &generator)
        configuration.maxQueue = 20
        configuration.showStyle = ShowStyle.allCases.randomElement(using: &generator)!
        let directory = try TemporaryDirectory()
        // Reopened at each check, so the previous one is released first (it holds the lock).
        var store: OverlayStore! = try OverlayStore(directory: directory.path)
        store.start()
        var engine = OverlayEngine(configuration: configuration)
        var time = Instant.zero
        var last: UInt64 = 0
        for step in 0..<300 {
            time = time + .seconds(Double(Int.random(in: 0...2, using: &generator)) * 0.1)
            let id = Int64.random(in: 1...max(1, engine.nextID), using: &generator)
            let changes: Changes
            switch Int.random(in: 0..<12, using: &generator) {
            case 0..<4:
                let input = MessageInput(
                    kind: MessageKind.allCases.randomElement(using: &generator), text: "m\(step)",
                    progress: Bool.random(using: &generator) ? .some(0.5) : nil,
                    duration: Bool.random(using: &generator) ? .seconds(0.4) : nil,
                    immediate: Int.random(in: 0..<4, using: &generator) == 0,
                    key: Bool.random(using: &generator) ? ["a", "b"].randomElement(using: &generator) : nil)
                changes = engine.post(input, at: time).changes
            case 4:
                changes = engine.update(id: id, with: MessageInput(kind: .sent, progress: .some(1)), at: time).changes
            case 5:
                changes = engine.delete(id: id, at: time).changes
            case 6:
                changes =
                    engine.changeOrientation(
                        to: Orientation.allCases.randomElement(using: &generator)!, at: time
                    ).changes
            case 7:
                changes =
                    engine.changeDevice(to: DeviceProfile.builtIn.randomElement(using: &generator)!, at: time)
                    .changes
            case 8:
                // A refused event: its time passes, nothing is written.
                changes = engine.post(MessageInput(text: " "), at: time).changes
            default:
                time = time + .seconds(Double(Int.random(in: 0...40, using: &generator)) * 0.1)
                changes = engine.advance(to: time)
            }
            if !changes.isEmpty {
                last = store.submit(ChannelRecord(name: "c", engine: engine, changes: changes))
            }
            guard step % 25 == 24 else { continue }
            #expect(store.waitUntilDurable(last))
            store.close()
            store = nil
            store = try OverlayStore(directory: directory.path)
            let stored = try #require(try store.writer.loadChannel("c"), "seed \(seed), step \(step)")
            var restored = OverlayEngine.exactly(
                configuration: configuration, state: stored.state, live: stored.live, history: stored.history,
                devices: ExactRestoreTests.devices)
            #expect(restored.advance(to: engine.now).isEmpty, "seed \(seed), step \(step)")
            #expect(
                restored == engine, "seed \(seed), step \(step): \(ExactRestoreTests.differences(restored, engine))")
            #expect(restored.overlay(at: time + .seconds(0.05)) == engine.overlay(at: time + .seconds(0.05)))
            store.start()
        }
        store.close()
    }
}
