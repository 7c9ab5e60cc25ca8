/// The status bar's launch state, appearance mode, timing and colours; the defaults are those of
/// docs/STATUSBAR.md.
public struct StatusBarConfiguration: Hashable, Sendable {
    public var appearance: StatusBarAppearance = .application
    /// The style at launch (Info.plist `UIStatusBarStyle`).
    public var style: StatusBarStyle = .lightContent
    /// Whether the bar is hidden at launch (Info.plist `UIStatusBarHidden`).
    public var hiddenAtLaunch = false
    /// How long a full hide or show takes; an interrupted one takes the share that remains.
    public var animationDuration: Interval = .seconds(0.25)
    /// The colours of `info` and `sending` under a `lightContent` bar. `nil` keeps each kind's own
    /// style, which is `#1C1C1E`/`#FFFFFF` unless `styles` says otherwise: configuring `styles.info`
    /// must go on meaning something under the default launch style.
    public var lightContentColours: Style? = nil
    /// The colours of `info` and `sending` under a `default` or `darkContent` bar.
    public var darkContentColours = Style(background: "#F2F2F7", foreground: "#000000")

    public init() {}

    /// The kinds whose colours follow the status bar: the neutral ones. The others carry meaning
    /// (sent, failed, progress) and keep their colours under any bar.
    public static let followingKinds: Set<MessageKind> = [.info, .sending]

    /// Why the appearance mode refuses a direct setting (`PUT /statusbar`), or nil. It depends on
    /// the configuration alone, so a server can refuse before it looks at (or creates) a channel.
    public func refusal(of input: StatusBarInput) -> StatusBarError? {
        guard appearance == .controllers else { return nil }
        for (field, isSet) in [("style", input.style != nil), ("hidden", input.hidden != nil)] where isSet {
            return .wrongAppearance(field: field, appearance: .controllers)
        }
        // The deciding controller's animation is used, so a direct one would be a silent no-op.
        if input.animation != nil { return .wrongAppearance(field: "animation", appearance: .controllers) }
        return nil
    }

    /// Why the appearance mode refuses a hierarchy (`PUT /statusbar/controllers`), or nil: with
    /// `application` appearance it would be kept without deciding anything.
    public var hierarchyRefusal: StatusBarError? {
        appearance == .controllers ? nil : .wrongAppearance(field: "controllers", appearance: .application)
    }

    /// The colours of a message of `kind`, whose own style is `own`, under a bar drawn in `style`.
    public func colours(for kind: MessageKind, own: Style?, under style: StatusBarStyle) -> Style? {
        guard StatusBarConfiguration.followingKinds.contains(kind) else { return own }
        switch style.drawn {
        case .lightContent: return lightContentColours ?? own
        case .default, .darkContent: return darkContentColours
        }
    }
}
