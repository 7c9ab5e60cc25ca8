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

    /// The colours of a message of `kind`, whose own style is `own`, under a bar drawn in `style`.
    public func colours(for kind: MessageKind, own: Style?, under style: StatusBarStyle) -> Style? {
        guard StatusBarConfiguration.followingKinds.contains(kind) else { return own }
        switch style.drawn {
        case .lightContent: return lightContentColours ?? own
        case .default, .darkContent: return darkContentColours
        }
    }
}
