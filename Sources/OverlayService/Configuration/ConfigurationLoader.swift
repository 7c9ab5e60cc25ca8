import OverlayEngine
import OverlayPublisher
import Platform

#if canImport(Glibc)
    import Glibc
#endif

/// What the command line asks for.
public enum Invocation: Hashable, Sendable {
    case run(ServiceConfiguration)
    /// Ask the server this configuration describes whether it is healthy (for Docker's HEALTHCHECK).
    case healthcheck(ServiceConfiguration)
    case help
    case version
}

/// Builds the configuration: embedded defaults, then the JSON file (`--config` or
/// `OVERLAYD_CONFIG`), then `OVERLAYD_*` environment variables, then flags; later wins (MODEL §7).
/// What each may set is the settings table, `ConfigurationSettings`.
public enum ConfigurationLoader {
    public static func load(
        arguments: [String], environment: [String: String],
        readFile: (String) throws(ConfigurationError) -> [UInt8] = ConfigurationLoader.readFile
    ) throws(ConfigurationError) -> Invocation {
        let table = ConfigurationSettings.table
        var flags: [(setting: Setting<ServiceConfiguration>, flag: String, value: FieldValue)] = []
        var configPath = environment["OVERLAYD_CONFIG"].flatMap { $0.isEmpty ? nil : $0 }
        var index = 0
        var healthcheck = false
        while index < arguments.count {
            let argument = arguments[index]
            index += 1
            if argument == "--help" || argument == "-h" { return .help }
            if argument == "--version" { return .version }
            if argument == "--healthcheck" {
                healthcheck = true
                continue
            }
            let parts = argument.split(separator: "=", maxSplits: 1, omittingEmptySubsequences: false)
            let flag = String(parts[0])
            let setting = table.rows.first { $0.flag?.name == flag }
            guard flag == "--config" || setting != nil else {
                throw ConfigurationError(key: argument, reason: "unknown option (see --help)")
            }
            // nil: a switch standing alone.
            let text: String?
            if parts.count == 2 {
                text = String(parts[1])
            } else if setting?.flag?.standsAlone == true {
                text = nil
            } else {
                guard index < arguments.count else { throw ConfigurationError(key: flag, reason: "needs a value") }
                text = arguments[index]
                index += 1
            }
            if let setting {
                flags.append((setting, flag, text.map { .text($0) } ?? .bare))
            } else {
                configPath = text
            }
        }

        var configuration = ServiceConfiguration()
        // Which source set each top-level key last, so that a later source winning is said, not
        // silent (a variable baked into an image would otherwise hide a mounted file's value).
        var setBy: [String: String] = [:]
        func applied(_ key: String, by source: String) {
            if let earlier = setBy[key] { configuration.overrides.append("\(key): \(source) overrides \(earlier)") }
            setBy[key] = source
        }
        if let configPath {
            let bytes = try readFile(configPath)
            let json: JSONValue
            do {
                json = try JSONParser.parse(bytes)
            } catch {
                throw ConfigurationError(key: configPath, reason: "not valid JSON: \(error)")
            }
            try table.apply(json, to: &configuration)
            if case .object(let members) = json {
                for key in members.keys { setBy[key] = configPath }
            }
        }
        for setting in table.rows {
            guard let variable = setting.variable, let text = environment[variable] else { continue }
            // An empty variable is one not set (what `VAR=` in a compose file or a unit means),
            // unless it is how the setting is turned off (`OVERLAYD_TOKEN=`).
            if text.isEmpty && !setting.emptyIsOff { continue }
            try setting.read(.text(text), variable, &configuration)
            applied(setting.topLevelKey, by: variable)
        }
        for (setting, flag, value) in flags {
            try setting.read(value, flag, &configuration)
            applied(setting.topLevelKey, by: flag)
        }
        try check(configuration)
        return healthcheck ? .healthcheck(configuration) : .run(configuration)
    }

    /// Rules that span keys, checked once everything has been applied.
    static func check(_ configuration: ServiceConfiguration) throws(ConfigurationError) {
        guard configuration.devices[configuration.device] != nil else {
            throw ConfigurationError(
                key: "device",
                reason: "unknown device \"\(configuration.device)\"; known: "
                    + configuration.devices.keys.sorted().joined(separator: ", "))
        }
        for profile in configuration.devices.values.sorted(by: { $0.name < $1.name })
        where 2 * configuration.engine.inset >= min(profile.width, profile.height) {
            throw ConfigurationError(key: "inset", reason: "leaves no room for the label on device \(profile.name)")
        }
        _ = try configuration.text.metrics()
        if !SocketAddress.isValid(configuration.host) {
            throw ConfigurationError(key: "host", reason: "must be an IPv4 or IPv6 address or localhost")
        }
        // libcurl is loaded only when publishing is on: a missing one is found here, not at the
        // first change.
        if configuration.publish != nil, let problem = CurlTransport.unavailability {
            throw ConfigurationError(key: "publish", reason: "\(problem); install libcurl4")
        }
    }

    /// The whole file, or an error naming it.
    public static func readFile(_ path: String) throws(ConfigurationError) -> [UInt8] {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else {
            throw ConfigurationError(
                key: path, reason: "cannot open the configuration file (\(String(cString: strerror(errno))))")
        }
        defer { close(descriptor) }
        var contents: [UInt8] = []
        var chunk = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = chunk.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 {
                if errno == EINTR { continue }
                throw ConfigurationError(key: path, reason: "cannot read the configuration file")
            }
            if count == 0 { return contents }
            contents.append(contentsOf: chunk[0..<count])
            if contents.count > 1 << 20 {
                throw ConfigurationError(key: path, reason: "the configuration file is over 1 MiB")
            }
        }
    }
}
