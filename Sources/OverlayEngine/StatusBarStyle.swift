/// How the app's own status bar draws its content (`UIStatusBarStyle`).
public enum StatusBarStyle: String, CaseIterable, Hashable, Sendable {
    /// The system default, which draws as `darkContent`.
    case `default`
    /// Light content, for dark backgrounds.
    case lightContent
    /// Dark content, for light backgrounds.
    case darkContent

    /// The style as it is drawn: `default` is dark content.
    public var drawn: StatusBarStyle { self == .default ? .darkContent : self }
}

/// The animation a change of the status bar's `hidden` uses (`UIStatusBarAnimation`).
public enum StatusBarAnimation: String, CaseIterable, Hashable, Sendable {
    /// Alpha 1 → 0 to hide, 0 → 1 to show; the offset stays 0.
    case fade
    /// Offset 0 → −h to hide, −h → 0 to show; alpha stays 1.
    case slide
    /// The change is instant.
    case none
}

/// Who decides the status bar's style and hidden flag (the Info.plist key "View controller-based
/// status bar appearance").
public enum StatusBarAppearance: String, CaseIterable, Hashable, Sendable {
    /// The key set to NO: `PUT /statusbar` sets style, hidden and animation directly.
    case application
    /// The key set to YES: the controller hierarchy decides, and direct settings are refused.
    case controllers
}
