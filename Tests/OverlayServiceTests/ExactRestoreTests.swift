import TestSupport
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
        check("statusBar", a.statusBar, b.statusBar)
        check("statusBar.motion", a.statusBar.motion, b.statusBar.motion)
        check("statusBar.now", a.statusBar.now, b.statusBar.now)
        check("leaving", a.leaving, b.leaving)
        check("rise", a.rise, b.rise)
        return found
    }

    /// A status-bar event as a sender makes it: with `application` appearance mostly `PUT
    /// /statusbar` (style, hidden, animation, any of them), with `controllers` mostly a
    /// hierarchy; now and then the other mode's request, which is refused and stores nothing.
    static func statusBarEvent(
        _ engine: inout OverlayEngine, at time: Instant, using generator: inout SplitMix
    ) -> Changes {
        let controllers = engine.configuration.statusBar.appearance == .controllers
        if controllers == (Int.random(in: 0..<8, using: &generator) != 0) {
            return engine.setControllers(randomHierarchy(using: &generator), at: time).changes
        }
        let input = StatusBarInput(
            style: Bool.random(using: &generator) ? StatusBarStyle.allCases.randomElement(using: &generator) : nil,
            hidden: Int.random(in: 0..<4, using: &generator) == 0 ? nil : Bool.random(using: &generator),
            animation: Bool.random(using: &generator)
                ? StatusBarAnimation.allCases.randomElement(using: &generator) : nil)
        return engine.setStatusBar(input, at: time).changes
    }

    /// One to four controllers: each forwards style or hidden only to a later one and presents
    /// at most one later one nobody else presents, so the hierarchy is always valid, and it hides
    /// the bar, restyles it and picks its animation at random.
    static func randomHierarchy(using generator: inout SplitMix) -> ControllerHierarchy {
        let count = Int.random(in: 1...4, using: &generator)
        var presented: Set<Int> = []
        var controllers: [ControllerHierarchy.Controller] = []
        for index in 0..<count {
            func later() -> Int? {
                index + 1 < count && Bool.random(using: &generator)
                    ? Int.random(in: (index + 1)..<count, using: &generator) : nil
            }
            var presents = later()
            if let target = presents, !presented.insert(target).inserted { presents = nil }
            controllers.append(
                ControllerHierarchy.Controller(
                    name: "c\(index)",
                    preferredStatusBarStyle: StatusBarStyle.allCases.randomElement(using: &generator)!,
                    prefersStatusBarHidden: Bool.random(using: &generator),
                    preferredStatusBarUpdateAnimation: StatusBarAnimation.allCases.randomElement(using: &generator)!,
                    childForStatusBarStyle: later().map { "c\($0)" },
                    childForStatusBarHidden: later().map { "c\($0)" },
                    presented: presents.map { "c\($0)" },
                    fullScreen: Bool.random(using: &generator),
                    modalPresentationCapturesStatusBarAppearance: Bool.random(using: &generator)))
        }
        switch ControllerHierarchy.validated(root: "c0", controllers: controllers) {
        case .success(let hierarchy): return hierarchy
        case .failure(let error): fatalError("a generated hierarchy is invalid: \(error)")
        }
    }

    /// The status bar takes part in both appearance modes: its hides and shows (0.1 to 0.6 s
    /// long, so that other events and deadlines fall inside them) hold the overlay, send the shown
    /// message back to the queue and draw it away beside the bar.
    @Test(arguments: [1, 2, 3, 4] as [UInt64], [StatusBarAppearance.application, .controllers])
    func storeHoldsTheWholeEngine(seed: UInt64, appearance: StatusBarAppearance) throws {
        var generator = SplitMix(seed: seed)
        var configuration = EngineConfiguration()
        configuration.historySize = Int.random(in: 0...4, using: &generator)
        configuration.maxQueue = 20
        configuration.showStyle = ShowStyle.allCases.randomElement(using: &generator)!
        configuration.statusBar.appearance = appearance
        configuration.statusBar.hiddenAtLaunch = Bool.random(using: &generator)
        configuration.statusBar.animationDuration = .seconds(Double(Int.random(in: 1...6, using: &generator)) * 0.1)
        // Half the runs rise between messages (0.6 s, so that events fall inside rises), and wait
        // before an immediate message replaces the shown one.
        if seed % 2 == 0 {
            configuration.messageChange = .rise
            configuration.minimumVisible = .seconds(0.3)
        }
        let directory = try TemporaryDirectory()
        // Reopened at each check, so the previous one is released first (it holds the lock).
        var store: OverlayStore! = try OverlayStore(directory: directory.path)
        store.start()
        var engine = OverlayEngine(configuration: configuration)
        var time = Instant.zero
        var last: UInt64 = 0
        var lastCheck = 0
        // Checks made while the bar hid or showed, or the overlay hid beside it.
        var checksInFlight = 0
        var checksInRise = 0
        for step in 0..<300 {
            time = time + .seconds(Double(Int.random(in: 0...2, using: &generator)) * 0.1)
            let id = Int64.random(in: 1...max(1, engine.nextID), using: &generator)
            let changes: Changes
            switch Int.random(in: 0..<15, using: &generator) {
            case 0..<4:
                let input = MessageInput(
                    kind: MessageKind.allCases.randomElement(using: &generator), text: "m\(step)",
                    progress: Bool.random(using: &generator) ? .some(0.5) : nil,
                    duration: Bool.random(using: &generator) ? .seconds(0.4) : nil,
                    immediate: Int.random(in: 0..<4, using: &generator) == 0,
                    key: Bool.random(using: &generator) ? ["a", "b"].randomElement(using: &generator) : nil)
                changes = engine.post(input, at: time).changes
            case 4:
                let input =
                    Bool.random(using: &generator)
                    ? MessageInput(kind: .sent, progress: .some(1)) : MessageInput(text: "p\(step)")
                changes = engine.update(id: id, with: input, at: time).changes
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
            case 9..<12:
                changes = ExactRestoreTests.statusBarEvent(&engine, at: time, using: &generator)
            default:
                time = time + .seconds(Double(Int.random(in: 0...40, using: &generator)) * 0.1)
                changes = engine.advance(to: time)
            }
            if !changes.isEmpty {
                last = store.submit(ChannelRecord(name: "c", engine: engine, changes: changes))
            }
            // Every 25 steps, and more often while the bar's hide or show runs: what a rollback
            // there must bring back is all the bar's.
            let inFlight = engine.statusBar.motion != nil || engine.leaving != nil || engine.rise != nil
            guard step % 25 == 24 || (inFlight && !changes.isEmpty && step - lastCheck >= 5) else { continue }
            lastCheck = step
            if inFlight { checksInFlight += 1 }
            if engine.rise != nil { checksInRise += 1 }
            #expect(store.waitUntilDurable(last))
            store.close()
            store = nil
            store = try OverlayStore(directory: directory.path)
            // The reopened store has been given nothing yet: the last sequence was the closed one's.
            last = 0
            let stored = try #require(try store.writer.loadChannel("c"), "seed \(seed), \(appearance), step \(step)")
            var restored = OverlayEngine.exactly(
                configuration: configuration, state: stored.state, live: stored.live, history: stored.history,
                devices: ExactRestoreTests.devices)
            #expect(restored.advance(to: engine.now).isEmpty, "seed \(seed), \(appearance), step \(step)")
            #expect(
                restored == engine,
                "seed \(seed), \(appearance), step \(step): \(ExactRestoreTests.differences(restored, engine))")
            #expect(restored.overlay(at: time + .seconds(0.05)) == engine.overlay(at: time + .seconds(0.05)))
            store.start()
        }
        store.close()
        #expect(checksInFlight > 0, "seed \(seed), \(appearance): no check fell inside a hide or show of the bar")
        if configuration.messageChange == .rise {
            #expect(checksInRise > 0, "seed \(seed), \(appearance): no check fell inside a rise")
        }
    }
}
