// `overlayd --help`: the settings table's flags and variables, with the options that are not
// settings around them.
extension ConfigurationLoader {
    public static let usage = usage(of: ConfigurationSettings.table)

    static func usage(of table: SettingTable<ServiceConfiguration>) -> String {
        let given = table.rows.filter { $0.flag != nil || $0.variable != nil }
        // Flags first, as they are typed; the variables without one (the tokens) after them.
        let settings = given.filter { $0.flag != nil } + given.filter { $0.flag == nil }
        let lines: [(option: String, meaning: String, variable: String)] =
            [("--config FILE", "JSON configuration file", "OVERLAYD_CONFIG")]
            + settings.map { setting in
                (
                    setting.flag?.usage ?? "(no flag)",
                    setting.summary + (setting.shownDefault.map { " (\($0))" } ?? ""),
                    setting.variable ?? ""
                )
            }
            + [
                ("--healthcheck", "exit 0 if the configured server answers /healthz", ""),
                ("--help", "this text", ""), ("--version", "the version", ""),
            ]
        let optionWidth = lines.map(\.option.count).max()! + 2
        let meaningWidth = lines.filter { !$0.variable.isEmpty }.map(\.meaning.count).max()! + 2
        let options = lines.map { line in
            let text = line.variable.isEmpty ? line.meaning : padded(line.meaning, meaningWidth) + line.variable
            return "  " + padded(line.option, optionWidth) + text
        }
        let off = table.rows.filter(\.emptyIsOff).compactMap(\.variable)
        let empty = wrapped(
            "An empty variable counts as not set, except \(listed(off)), which it turns off.", width: 80)
        return """
            usage: overlayd [options]

            Broadcasts iOS-style status-bar notifications over HTTP (see README.md).

            options (each also an environment variable; flags win over the environment,
            which wins over the configuration file, which wins over the embedded defaults):
            \(options.joined(separator: "\n"))

            \(empty)
            docs/CONFIGURATION.md lists every setting of the configuration file.
            Invalid configuration exits with status 2 and names the key at fault.
            """
    }

    private static func padded(_ text: String, _ width: Int) -> String {
        text + String(repeating: " ", count: max(width - text.count, 1))
    }

    private static func listed(_ names: [String]) -> String {
        names.count < 2 ? names.joined() : names.dropLast().joined(separator: ", ") + " and " + names.last!
    }

    /// `text` in lines of at most `width` characters, broken at spaces.
    private static func wrapped(_ text: String, width: Int) -> String {
        var lines: [String] = []
        var line = ""
        for word in text.split(separator: " ") {
            if !line.isEmpty && line.count + 1 + word.count > width {
                lines.append(line)
                line = ""
            }
            line += (line.isEmpty ? "" : " ") + word
        }
        return (lines + [line]).joined(separator: "\n")
    }
}
