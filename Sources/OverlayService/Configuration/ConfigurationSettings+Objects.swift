import OverlayEngine

// The configuration's objects of their own: those keyed by message kind, the colour pairs, and
// `devices`, whose keys are names the file chooses.
extension ConfigurationSettings {
    /// `durations`: seconds for each kind, null for sticky.
    static let durations = SettingTable<KindTable<Interval>>(
        MessageKind.allCases.map { kind in
            Setting(Field.seconds(kind.rawValue, in: 0.001...3600).nullable, \KindTable<Interval>[kind])
        })

    /// `priorities`: each kind's priority when its sender gives none; null for `default` (3).
    static let priorities = SettingTable<KindTable<Priority>>(
        MessageKind.allCases.map { kind in
            Setting(Field.priority(kind.rawValue).nullable, \KindTable<Priority>[kind])
        })

    /// `styles`: each kind's colours, a pair given in part keeping the rest.
    static let styles = SettingTable<[MessageKind: Style]>(
        MessageKind.allCases.map { kind in
            Setting(kind.rawValue) { (value, name, styles) throws(ConfigurationError) in
                var style = styles[kind] ?? Style(background: "#000000", foreground: "#FFFFFF")
                try colours.apply(value.json, at: name, to: &style)
                styles[kind] = style
            }
        })

    static let colours = SettingTable<Style>([
        Setting(.colour("background"), \.background, "#RRGGBB"),
        Setting(.colour("foreground"), \.foreground, "#RRGGBB"),
    ])

    /// A status-bar colour pair, given whole.
    static func colourPair(_ value: FieldValue, _ name: String) throws(ConfigurationError) -> Style {
        var style = Style(background: "", foreground: "")
        try colours.apply(value.json, at: name, to: &style)
        for (key, colour) in [("background", style.background), ("foreground", style.foreground)] where colour.isEmpty {
            throw ConfigurationError(key: "\(name).\(key)", reason: "is required: a colour as #RRGGBB")
        }
        return style
    }

    static let deviceProfile = SettingTable<DeviceProfile>([
        Setting(.number("width").within(1...100_000), \.width, "portrait width"),
        Setting(.number("height").within(1...100_000), \.height, "portrait height"),
        Setting(.number("statusBarHeight").within(1...10_000), \.statusBarHeight, "status bar height"),
        Setting(Field.number("safeAreaTop").within(0...10_000).nullable, \.safeAreaTop, "portrait safe area's top"),
        Setting(.choice("cutout"), \.cutout, "none, notch or island"),
        Setting("island", "the island's width, height and y") { (value, name, profile) throws(ConfigurationError) in
            var island = profile.island ?? DeviceProfile.Island(width: 0, height: 0, y: -1)
            try islandTable.apply(value.json, at: name, to: &island)
            guard island.width > 0, island.height > 0, island.y >= 0 else {
                throw ConfigurationError(key: name, reason: "an island needs width, height and y")
            }
            profile.island = island
        },
    ])

    static let islandTable = SettingTable<DeviceProfile.Island>([
        Setting(.number("width").within(1...100_000), \.width, "island width"),
        Setting(.number("height").within(1...10_000), \.height, "island height"),
        Setting(.number("y").within(0...10_000), \.y, "distance from the top edge"),
    ])

    /// `devices`: profiles by name, each merged into the built-in one of its name, if any; a new
    /// one needs every dimension.
    static func readDevices(
        _ value: FieldValue, _ name: String, _ configuration: inout ServiceConfiguration
    ) throws(ConfigurationError) {
        for (device, object) in try value.json.members(named: name).sorted(by: { $0.key < $1.key }) {
            let path = "\(name).\(device)"
            guard Name.isValid(device) else {
                throw ConfigurationError(
                    key: path, reason: "a device name is 1-64 of A-Z a-z 0-9 . _ -, and not . or ..")
            }
            var profile =
                configuration.devices[device] ?? DeviceProfile(name: device, width: 0, height: 0, statusBarHeight: 0)
            try deviceProfile.apply(object, at: path, to: &profile)
            guard profile.width > 0, profile.height > 0, profile.statusBarHeight > 0 else {
                throw ConfigurationError(key: path, reason: "a new device needs width, height and statusBarHeight")
            }
            // An island is drawn where it is: one without its rectangle could not be.
            if profile.cutout == .island, profile.island == nil {
                throw ConfigurationError(key: "\(path).island", reason: "an island cutout needs its island rectangle")
            }
            if profile.cutout != .island, profile.island != nil {
                throw ConfigurationError(key: "\(path).island", reason: "only a device with cutout island has one")
            }
            if let island = profile.island, island.width > profile.width {
                throw ConfigurationError(key: "\(path).island.width", reason: "must not be wider than the screen")
            }
            configuration.devices[device] = profile
        }
    }
}
