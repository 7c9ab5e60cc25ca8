/// How a setting is given on the command line: `--port 80` or `--port=80`; a switch may also
/// stand alone (`--ephemeral` is `--ephemeral=true`).
struct SettingFlag: Sendable, Equatable {
    let name: String
    /// What `--help` shows after the name: ` PORT`, `=BOOL`, or nothing.
    let argument: String
    /// Whether the flag alone is a value (a bare one, which a boolean reads as true); otherwise the
    /// next argument is its value.
    let standsAlone: Bool

    /// A flag that takes a value, shown as `argument` in `--help`.
    static func option(_ name: String, _ argument: String) -> SettingFlag {
        SettingFlag(name: name, argument: " " + argument, standsAlone: false)
    }

    /// A boolean's flag, true when it stands alone; `value` shows it as `--name=VALUE` in
    /// `--help`, for one whose default is true (it is given to turn it off).
    static func `switch`(_ name: String, value: String? = nil) -> SettingFlag {
        SettingFlag(name: name, argument: value.map { "=" + $0 } ?? "", standsAlone: true)
    }

    /// The flag as `--help` shows it.
    var usage: String { name + argument }
}
