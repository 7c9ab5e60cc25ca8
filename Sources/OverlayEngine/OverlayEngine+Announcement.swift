// What VoiceOver reads for the drawn message (docs/MODEL.md §14), and the version at which that
// last changed, so that a reader speaks once per change and not once per progress step.
extension OverlayEngine {
    /// Compares what the drawn message would announce with what it announced, and moves
    /// `announcementVersion` to the current version when it differs. Called at the end of every
    /// event and after every deadline, so that the version is the one the change came with,
    /// however deadlines are grouped into events.
    mutating func noteAnnouncement() {
        // Nothing the announcement is made of changes without a new version: most looks (the
        // start of an event, the end of one that changed nothing) are skipped.
        guard announcementNotedAt != version else { return }
        announcementNotedAt = version
        guard !announcesDrawn else { return }
        announced = drawnAnnouncement
        announcementVersion = version
    }

    /// Whether `announced` is what the drawn message announces, compared field by field in place
    /// (a progress step, a tap, a slide's end): no `Announced` is made or copied for it.
    private var announcesDrawn: Bool {
        guard phase != .hidden else { return announced == nil }
        if let id = current?.id {
            return announced?.describes(
                id: id, accessibilityLabel: current?.accessibilityLabel, kind: current?.kind, text: current?.text,
                subtitle: current?.subtitle, progress: current?.progress) ?? false
        }
        if let id = leaving?.id {
            return announced?.describes(
                id: id, accessibilityLabel: leaving?.accessibilityLabel, kind: leaving?.kind, text: leaving?.text,
                subtitle: leaving?.subtitle, progress: leaving?.progress) ?? false
        }
        return announced == nil
    }

    /// What the drawn message announces, taken as announced already: an engine rebuilt exactly
    /// as it was keeps the version it had for it.
    mutating func noteAnnouncementRestored() {
        announced = drawnAnnouncement
        announcementNotedAt = version
    }

    /// What the drawn message (none while hidden; the one hiding beside the status bar) announces.
    /// Read field by field through the optionals: binding the message would copy all of it, and
    /// retain every string it holds, on every event that changes something.
    private var drawnAnnouncement: Announced? {
        guard phase != .hidden else { return nil }
        if let id = current?.id {
            return Announced(
                id: id, accessibilityLabel: current?.accessibilityLabel, kind: current?.kind, text: current?.text,
                subtitle: current?.subtitle, progress: current?.progress)
        }
        if let id = leaving?.id {
            return Announced(
                id: id, accessibilityLabel: leaving?.accessibilityLabel, kind: leaving?.kind, text: leaving?.text,
                subtitle: leaving?.subtitle, progress: leaving?.progress)
        }
        return nil
    }
}

/// What an announcement is made of: the message (another one is a change even with the same
/// words) and the parts of its words, the progress counted in the tens it is spoken in.
struct Announced: Hashable, Sendable {
    var id: Int64
    var accessibilityLabel: String?
    var kind: MessageKind
    var text: String
    var subtitle: String?
    var percent: Int?

    init(
        id: Int64, accessibilityLabel: String?, kind: MessageKind?, text: String?, subtitle: String?, progress: Double?
    ) {
        self.id = id
        if let accessibilityLabel {
            // The label replaces the rest: a change of text under it says nothing new.
            self.accessibilityLabel = accessibilityLabel
            self.kind = .info
            self.text = ""
        } else {
            self.kind = kind ?? .info
            self.text = text ?? ""
            self.subtitle = subtitle
            percent = progress.map(Message.spokenPercent)
        }
    }

    /// Whether the message of these fields announces this: what `init` would make, `==` to it.
    func describes(
        id: Int64, accessibilityLabel: String?, kind: MessageKind?, text: String?, subtitle: String?, progress: Double?
    ) -> Bool {
        guard self.id == id else { return false }
        if let accessibilityLabel { return self.accessibilityLabel == accessibilityLabel }
        return self.accessibilityLabel == nil && self.kind == kind && self.text == text && self.subtitle == subtitle
            && percent == progress.map(Message.spokenPercent)
    }
}

extension Message {
    /// The text VoiceOver reads for the message: its `accessibilityLabel`, else the kind's word,
    /// `: `, the text, then `, ` and the subtitle (in every presentation: the announcement is
    /// about the message, not what is drawn), then `, N percent` when it has a progress.
    public var announcement: String {
        if let accessibilityLabel { return accessibilityLabel }
        var spoken = kind.spokenWord + ": " + text
        if let subtitle { spoken += ", " + subtitle }
        if let progress { spoken += ", \(Message.spokenPercent(progress)) percent" }
        return spoken
    }

    /// A progress as it is spoken: 10 × ⌊10 × progress⌋, so 0.999 is 90 and only 1 is 100. The
    /// tenth is decided against the double nearest each decimal tenth, the number a sender who
    /// wrote `0.3` sent: 0.3 is 30 wherever 10 × 0.3 would fall in floating point, 0.29999 is 20.
    public static func spokenPercent(_ progress: Double) -> Int {
        guard progress > 0 else { return 0 }
        guard progress < 1 else { return 100 }
        var tenths = min(max(Int((progress * 10).rounded(.down)), 0), 9)
        if tenths < 9, progress >= Double(tenths + 1) / 10 { tenths += 1 }
        if tenths > 0, progress < Double(tenths) / 10 { tenths -= 1 }
        return tenths * 10
    }
}

extension MessageKind {
    /// The word an announcement starts with.
    public var spokenWord: String {
        switch self {
        case .sending: "Sending"
        case .sent: "Sent"
        case .failed: "Failed"
        case .progress: "Progress"
        case .info: "Info"
        }
    }
}

extension OverlaySnapshot {
    /// What VoiceOver reads for the drawn message (`Message.announcement`); nil when none is
    /// drawn. It changes only with the version: `announcementVersion` says at which.
    public var announcement: String? { message?.announcement }
}
