import Testing

@testable import OverlayEngine

/// What is spoken (MODEL §14): the overlay's announcement is made of the drawn message's kind,
/// text, subtitle and progress (or its accessibility label), and `announcementVersion` is the
/// version at which it last changed. On the default iPad: a message posted at 0 shows 0 → 0.25.
@Suite("What is spoken (§14)")
struct AnnouncementTests {
    /// The kind's word, the text, the subtitle (in `statusBar` too, where it is not drawn), the
    /// progress in tens.
    @Test(arguments: [
        (MessageInput.message("Sending…", kind: .sending), "Sending: Sending…"),
        (.message("Photo sent", kind: .sent), "Sent: Photo sent"),
        (.message("Upload failed", kind: .failed, subtitle: "No network"), "Failed: Upload failed, No network"),
        (.message("Downloading podcast", kind: .progress, progress: 0.4), "Progress: Downloading podcast, 40 percent"),
        (.message("Hello"), "Info: Hello"),
        (.message("Copying", subtitle: "3 of 7", progress: 0.999), "Info: Copying, 3 of 7, 90 percent"),
        (.message("Done", kind: .progress, progress: 1), "Progress: Done, 100 percent"),
        (.message("Starting", kind: .progress), "Progress: Starting, 0 percent"),
    ])
    func words(input: MessageInput, spoken: String) throws {
        var engine = makeEngine()
        try engine.posted(input, at: .zero)
        #expect(engine.at(0.1).presentation == .statusBar)
        #expect(engine.at(0.1).announcement == spoken)
    }

    /// 10 × ⌊10 × progress⌋, decided on the decimal a sender writes.
    @Test(arguments: [
        (0.0, 0), (0.05, 0), (0.1, 10), (0.19999, 10), (0.2, 20), (0.29999, 20), (0.3, 30), (0.7, 70), (0.6, 60),
        (0.9, 90), (0.999, 90), (0.9999999999999999, 90), (1.0, 100), (0.1 + 0.2, 30), (0.7 - 0.1, 60),
        (0.30000000000000004, 30), (0.29999999999999993, 20), (0.5, 50), (0.8, 80), (0.4, 40),
    ])
    func percent(progress: Double, spoken: Int) {
        #expect(Message.spokenPercent(progress) == spoken, "\(progress)")
    }

    /// An accessibility label replaces the whole announcement.
    @Test func theLabelReplacesTheWords() throws {
        var engine = makeEngine()
        var input = MessageInput.message("3 ↑", kind: .progress, progress: 0.5)
        input.accessibilityLabel = .some("Uploading three photos")
        try engine.posted(input, at: .zero)
        #expect(engine.at(0).announcement == "Uploading three photos")
    }

    /// Null and the version it became null at while nothing is drawn; the message's version when
    /// it shows; unchanged by the slide's end, by progress within the same ten, by a text change
    /// under a label; changed by another ten, the text, the kind, another message with the same
    /// words, and the hide's end (null again).
    @Test func theVersionFollowsTheWords() throws {
        var engine = makeEngine()
        #expect(engine.at(0).announcement == nil)
        #expect(engine.at(0).announcementVersion == 0)

        try engine.posted(.message("Downloading", kind: .progress, progress: 0.41, key: "dl"), at: .zero)
        #expect(engine.version == 1)
        #expect(engine.at(0).announcementVersion == 1)
        // The slide's end is a version of its own; the words stay.
        #expect(engine.at(0.5).version == 2)
        #expect(engine.at(0.5).announcementVersion == 1)

        func progress(_ value: Double, at time: Double) throws -> OverlaySnapshot {
            _ = try engine.post(
                .message("Downloading", kind: .progress, progress: value, key: "dl"), at: .seconds(time)
            )
            .value.get()
            return engine.at(time)
        }
        let same = try progress(0.49, at: 1)
        #expect(same.version == 3 && same.announcementVersion == 1)
        #expect(same.announcement == "Progress: Downloading, 40 percent")
        let next = try progress(0.5, at: 1.1)
        #expect(next.version == 4 && next.announcementVersion == 4)
        #expect(next.announcement == "Progress: Downloading, 50 percent")

        try engine.patched(1, MessageInput(text: "Downloading…"), at: .seconds(1.2))
        #expect(engine.at(1.2).announcementVersion == 5)
        try engine.patched(1, MessageInput(kind: .sending), at: .seconds(1.3))
        #expect(engine.at(1.3).announcementVersion == 6)
        #expect(engine.at(1.3).announcement == "Sending: Downloading…, 50 percent")

        // A label: a change of the text under it says nothing new.
        var labelled = MessageInput()
        labelled.accessibilityLabel = .some("Downloading the podcast")
        try engine.patched(1, labelled, at: .seconds(1.4))
        #expect(engine.at(1.4).announcementVersion == 7)
        try engine.patched(1, MessageInput(text: "Still downloading", progress: 0.9), at: .seconds(1.5))
        #expect(engine.at(1.5).version == 8 && engine.at(1.5).announcementVersion == 7)

        // Another message with the same words is a change; so is the end of the hide.
        var twin = MessageInput.message("Downloading the podcast", immediate: true)
        twin.accessibilityLabel = .some("Downloading the podcast")
        try engine.posted(twin, at: .seconds(2))
        #expect(engine.at(2).announcement == "Downloading the podcast")
        #expect(engine.at(2).announcementVersion == 9)
        try engine.deleted(2, at: .seconds(3))
        let hiding = engine.at(3)
        #expect(hiding.phase == .visible && hiding.message?.id == 1)
        #expect(hiding.announcementVersion == 10)
        try engine.deleted(1, at: .seconds(4))
        #expect(engine.at(4).phase == .hiding)
        #expect(engine.at(4).announcement == "Downloading the podcast")
        #expect(engine.at(4).announcementVersion == 10)
        let hidden = engine.at(4.25)
        #expect(hidden.phase == .hidden && hidden.announcement == nil)
        #expect(hidden.announcementVersion == hidden.version)
    }

    /// Deadlines reached in one advance or in several give the same version: each change is
    /// noted at the deadline that made it.
    @Test func howTimePassesDoesNotMatter() throws {
        var base = makeEngine()
        try base.posted(.message("a", duration: 1), at: .zero)
        try base.posted(.message("b", duration: 1), at: .zero)
        var stepped = base
        for time in stride(from: 0.05, through: 3, by: 0.05) { stepped.advance(to: .seconds(time)) }
        var leaped = base
        leaped.advance(to: .seconds(3))
        #expect(stepped.announcementVersion == leaped.announcementVersion)
        #expect(stepped.at(3).announcementVersion == base.at(3).announcementVersion)
        // b replaced a at 1.25, a version of its own; the hide after b ended at 2.25 and hid at 2.5.
        var middle = base
        middle.advance(to: .seconds(1.5))
        #expect(middle.at(1.5).message?.text == "b")
        #expect(middle.announcementVersion == base.at(1.25).version)
    }

    /// A rollback keeps the version of an announcement a reader may have heard, and gives a new
    /// one to an announcement it brings back; a restart announces what it shows at its own
    /// version, and keeps the version of a null announcement.
    @Test func rollbacksAndRestarts() throws {
        var engine = makeEngine()
        try engine.posted(.message("a", kind: .sending), at: .zero)
        try engine.posted(.message("b"), at: .zero)
        let stored = (state: engine.state, live: engine.liveMessages)
        #expect(stored.state.announcementVersion == 1)

        // A tap changes no words: the rolled-back engine keeps 1.
        var tapped = engine
        _ = tapped.tap(action: nil, at: .seconds(0.5))
        var back = OverlayEngine.exactly(
            configuration: engine.configuration, state: stored.state, live: stored.live, history: [], devices: [:])
        #expect(back == engine)
        back.continueAfter(version: tapped.version, nextID: tapped.nextID)
        back.continueAnnouncement(after: tapped)
        #expect(back.announcementVersion == 1)

        // A delete brought b on: rolled back, a is a change again, at the new version.
        var deleted = engine
        try deleted.deleted(1, at: .seconds(0.5))
        #expect(deleted.announced?.id == 2)
        var undone = OverlayEngine.exactly(
            configuration: engine.configuration, state: stored.state, live: stored.live, history: [], devices: [:])
        undone.continueAfter(version: deleted.version, nextID: deleted.nextID)
        undone.continueAnnouncement(after: deleted)
        #expect(undone.announcementVersion == undone.version)
        #expect(undone.announcementVersion > deleted.announcementVersion)

        // A restart shows a again: announced at the restart's version.
        var state = stored.state
        state.version += 100
        let restarted = OverlayEngine.restored(
            configuration: engine.configuration, state: state, live: stored.live, history: [], devices: [:]
        ).value
        #expect(restarted.at(0).announcement == "Sending: a")
        #expect(restarted.announcementVersion == restarted.version)

        // Nothing drawn before or after: the version it became null at stays.
        var idle = makeEngine()
        try idle.posted(.message("gone", duration: 1), at: .zero)
        idle.advance(to: .seconds(2))
        #expect(idle.phase == .hidden)
        let nullSince = idle.announcementVersion
        var idleState = idle.state
        idleState.version += 100
        let quiet = OverlayEngine.restored(
            configuration: idle.configuration, state: idleState, live: [], history: Array(idle.history), devices: [:]
        ).value
        #expect(quiet.at(0).announcement == nil)
        #expect(quiet.announcementVersion == nullSince)
        // A channel stored before there were announcements takes the restart's version.
        idleState.announcementVersion = nil
        let older = OverlayEngine.restored(
            configuration: idle.configuration, state: idleState, live: [], history: Array(idle.history), devices: [:]
        ).value
        #expect(older.announcementVersion == idleState.version)
    }
}
