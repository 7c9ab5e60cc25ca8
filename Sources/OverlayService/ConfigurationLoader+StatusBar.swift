import OverlayEngine

// The `statusBar` object of the configuration (docs/STATUSBAR.md, "Configuration").
extension ConfigurationLoader {
    static let statusBarKeys = ["appearance", "style", "hiddenAtLaunch", "animationDuration", "colours"]

    /// Applies `statusBar` if the configuration has it. A colour pair is given whole
    /// (`{"background", "foreground"}`); the light one may be null to keep the kinds' own styles.
    static func readStatusBar(
        _ reader: ObjectReader, into configuration: inout ServiceConfiguration
    ) throws(ConfigurationError) {
        var bar = configuration.engine.statusBar
        try reader.object("statusBar") { object throws(ConfigurationError) in
            try object.rejectUnknown(statusBarKeys)
            try object.choice("appearance", StatusBarAppearance.self) { bar.appearance = $0 }
            try object.choice("style", StatusBarStyle.self) { bar.style = $0 }
            try object.bool("hiddenAtLaunch") { bar.hiddenAtLaunch = $0 }
            try object.seconds("animationDuration", in: 0...60) { bar.animationDuration = $0 }
            try object.object("colours") { colours throws(ConfigurationError) in
                try colours.rejectUnknown(["lightContent", "darkContent"])
                if colours.contains("lightContent") {
                    bar.lightContentColours =
                        colours.isNull("lightContent") ? nil : try colourPair(colours.object("lightContent"))
                }
                if colours.contains("darkContent") {
                    bar.darkContentColours = try colourPair(colours.object("darkContent"))
                }
            }
        }
        configuration.engine.statusBar = bar
    }

    private static func colourPair(_ pair: ObjectReader) throws(ConfigurationError) -> Style {
        try pair.rejectUnknown(["background", "foreground"])
        var style = Style(background: "", foreground: "")
        try pair.colour("background") { style.background = $0 }
        try pair.colour("foreground") { style.foreground = $0 }
        for (name, value) in [("background", style.background), ("foreground", style.foreground)] where value.isEmpty {
            throw ConfigurationError(key: pair.key(name), reason: "is required: a colour as #RRGGBB")
        }
        return style
    }
}
