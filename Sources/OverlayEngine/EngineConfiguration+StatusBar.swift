extension EngineConfiguration {
    /// The style the overlay draws a message of `kind` in while the status bar below it is drawn in
    /// `statusBarStyle`: `info` and `sending` follow the bar, the other kinds keep `styles`.
    public func style(
        for kind: MessageKind, statusBarStyle: StatusBarStyle, statusBar: StatusBarConfiguration
    ) -> Style? {
        statusBar.colours(for: kind, own: styles[kind], under: statusBarStyle)
    }
}
