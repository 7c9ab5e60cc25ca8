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
public enum ConfigurationLoader {
    /// Environment variables and the flags that mirror them, with the setting each one sets.
    static let settings: [(variable: String, flag: String, key: String)] = [
        ("OVERLAYD_HOST", "--host", "host"),
        ("OVERLAYD_PORT", "--port", "port"),
        ("OVERLAYD_CLOCK", "--clock", "clock"),
        ("OVERLAYD_DEVICE", "--device", "device"),
        ("OVERLAYD_DATA_DIR", "--data-dir", "dataDir"),
        ("OVERLAYD_EPHEMERAL", "--ephemeral", "ephemeral"),
        ("OVERLAYD_MAX_QUEUE", "--max-queue", "maxQueue"),
        ("OVERLAYD_THREADS", "--threads", "threads"),
        ("OVERLAYD_ACCESS_LOG", "--access-log", "accessLog"),
        ("OVERLAYD_PUBLISH", "--publish", "publish"),
    ]

    /// Secrets come from the environment or the file only: a flag would show in `ps`.
    static let secretVariables: [(variable: String, key: String)] = [
        ("OVERLAYD_TOKEN", "token"),
        ("OVERLAYD_READ_TOKEN", "readToken"),
    ]

    /// Flags that stand alone (`--ephemeral` is `--ephemeral=true`).
    static let switches: Set<String> = ["--ephemeral", "--access-log"]

    public static func load(
        arguments: [String], environment: [String: String],
        readFile: (String) throws(ConfigurationError) -> [UInt8] = ConfigurationLoader.readFile
    ) throws(ConfigurationError) -> Invocation {
        var flags: [(flag: String, value: String)] = []
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
            guard flag == "--config" || settings.contains(where: { $0.flag == flag }) else {
                throw ConfigurationError(key: argument, reason: "unknown option (see --help)")
            }
            let value: String
            if parts.count == 2 {
                value = String(parts[1])
            } else if switches.contains(flag) {
                value = "true"
            } else {
                guard index < arguments.count else { throw ConfigurationError(key: flag, reason: "needs a value") }
                value = arguments[index]
                index += 1
            }
            if flag == "--config" { configPath = value } else { flags.append((flag, value)) }
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
            try apply(json, to: &configuration)
            if case .object(let members) = json {
                for key in members.keys { setBy[key] = configPath }
            }
        }
        for setting in settings {
            if let value = environment[setting.variable] {
                try applyText(value, key: setting.key, source: setting.variable, to: &configuration)
                applied(setting.key, by: setting.variable)
            }
        }
        for secret in secretVariables {
            if let value = environment[secret.variable] {
                try applyText(value, key: secret.key, source: secret.variable, to: &configuration)
                applied(secret.key, by: secret.variable)
            }
        }
        for (flag, value) in flags {
            let key = settings.first { $0.flag == flag }!.key
            try applyText(value, key: key, source: flag, to: &configuration)
            applied(key, by: flag)
        }
        try check(configuration)
        return healthcheck ? .healthcheck(configuration) : .run(configuration)
    }

    /// A setting given as text (environment or flag), checked as its JSON counterpart would be.
    static func applyText(
        _ text: String, key: String, source: String, to configuration: inout ServiceConfiguration
    ) throws(ConfigurationError) {
        let value: JSONValue
        switch key {
        case "port", "maxQueue", "threads":
            guard let number = Int(text.trimmingSpaces()) else {
                throw ConfigurationError(key: source, reason: "must be a whole number, not \"\(text)\"")
            }
            value = .number(Double(number))
        case "ephemeral", "accessLog":
            switch text.trimmingSpaces().lowercased() {
            case "1", "true", "yes", "on": value = .bool(true)
            case "0", "false", "no", "off", "": value = .bool(false)
            default: throw ConfigurationError(key: source, reason: "must be true or false, not \"\(text)\"")
            }
        default:
            value = .string(text)
        }
        do {
            try apply(.object([key: value]), to: &configuration)
        } catch {
            throw ConfigurationError(key: source, reason: error.reason)
        }
    }

    /// Applies the members of a configuration object. Unknown keys are errors: a misspelt key
    /// must not leave a default silently in place.
    public static func apply(_ json: JSONValue, to configuration: inout ServiceConfiguration) throws(ConfigurationError)
    {
        let reader = try ObjectReader(json, path: "")
        var c = configuration
        try reader.string("host") { c.host = $0 }
        try reader.integer("port", in: 0...65535) { c.port = $0 }
        try reader.choice("clock", ClockMode.self) { c.clock = $0 }
        try reader.string("dataDir") { value throws(ConfigurationError) in
            guard !value.isEmpty else { throw ConfigurationError(key: "dataDir", reason: "must not be empty") }
            c.dataDirectory = value
        }
        try reader.bool("ephemeral") { c.ephemeral = $0 }
        try reader.integer("threads", in: 1...64) { c.threads = $0 }
        try reader.bool("accessLog") { c.accessLog = $0 }
        try reader.number("heartbeatSeconds", in: 0.01...3600) { c.heartbeatSeconds = $0 }
        let tokens: [(String, WritableKeyPath<ServiceConfiguration, String?>)] = [
            ("token", \.token), ("readToken", \.readToken),
        ]
        for (name, field) in tokens {
            try reader.nullableString(name) { value throws(ConfigurationError) in
                // An empty value (OVERLAYD_TOKEN=) turns the token off.
                let trimmed = value?.trimmingSpaces() ?? ""
                guard !trimmed.isEmpty else {
                    c[keyPath: field] = nil
                    return
                }
                guard trimmed.utf8.count >= 8, trimmed.utf8.allSatisfy({ $0 > 0x20 && $0 < 0x7F }) else {
                    throw ConfigurationError(
                        key: name, reason: "must be at least 8 printable characters without spaces")
                }
                c[keyPath: field] = trimmed
            }
        }
        try reader.nullableString("publish") { value throws(ConfigurationError) in
            // An empty value (OVERLAYD_PUBLISH=) turns publishing off.
            let trimmed = value?.trimmingSpaces() ?? ""
            guard !trimmed.isEmpty else {
                c.publish = nil
                return
            }
            if let problem = PublisherConfiguration.problem(with: trimmed) {
                throw ConfigurationError(key: "publish", reason: problem)
            }
            c.publish = trimmed
        }
        try reader.object("devices") { devices throws(ConfigurationError) in
            for name in devices.keys {
                guard Name.isValid(name) else {
                    throw ConfigurationError(
                        key: "devices.\(name)", reason: "a device name is 1-64 of A-Z a-z 0-9 . _ -")
                }
                let device = try devices.object(name)
                var profile = c.devices[name] ?? DeviceProfile(name: name, width: 0, height: 0, statusBarHeight: 0)
                try device.number("width", in: 1...100_000) { profile.width = $0 }
                try device.number("height", in: 1...100_000) { profile.height = $0 }
                try device.number("statusBarHeight", in: 1...10_000) { profile.statusBarHeight = $0 }
                try device.rejectUnknown(["width", "height", "statusBarHeight"])
                guard profile.width > 0, profile.height > 0, profile.statusBarHeight > 0 else {
                    throw ConfigurationError(
                        key: "devices.\(name)", reason: "a new device needs width, height and statusBarHeight")
                }
                c.devices[name] = profile
            }
        }
        try reader.string("device") { c.device = $0 }
        try reader.choice("orientation", Orientation.self) { c.engine.orientation = $0 }
        try reader.choice("showStyle", ShowStyle.self) { c.engine.showStyle = $0 }
        try reader.choice("curve", Curve.self) { c.engine.curve = $0 }
        try reader.seconds("showDuration", in: 0...60) { c.engine.showDuration = $0 }
        try reader.seconds("hideDuration", in: 0...60) { c.engine.hideDuration = $0 }
        try reader.seconds("rotationDuration", in: 0...60) { c.engine.rotationDuration = $0 }
        try reader.object("durations") { durations throws(ConfigurationError) in
            try durations.rejectUnknown(MessageKind.allCases.map(\.rawValue))
            for kind in MessageKind.allCases where durations.contains(kind.rawValue) {
                if durations.isNull(kind.rawValue) {
                    c.engine.durations[kind] = nil
                } else {
                    try durations.seconds(kind.rawValue, in: 0.001...3600) { c.engine.durations[kind] = $0 }
                }
            }
        }
        try reader.seconds("completeDuration", in: 0.001...3600) { c.engine.completeDuration = $0 }
        try reader.seconds("maxStickySeconds", in: 0.001...86_400) { c.engine.maxStickyDuration = $0 }
        try reader.integer("maxQueue", in: 0...1_000_000) { c.engine.maxQueue = $0 }
        try reader.integer("historySize", in: 0...100_000) { c.engine.historySize = $0 }
        try reader.number("inset", in: 0...10_000) { c.engine.inset = $0 }
        try reader.object("progressBar") { bar throws(ConfigurationError) in
            try bar.rejectUnknown(["height", "position", "capWidth"])
            try bar.number("height", in: 0.001...10_000) { c.engine.progressBarHeight = $0 }
            try bar.choice("position", ProgressBarPosition.self) { c.engine.progressBarPosition = $0 }
            try bar.number("capWidth", in: 0...10_000) { c.engine.progressBarCapWidth = $0 }
        }
        try reader.object("styles") { styles throws(ConfigurationError) in
            try styles.rejectUnknown(MessageKind.allCases.map(\.rawValue))
            for kind in MessageKind.allCases where styles.contains(kind.rawValue) {
                let style = try styles.object(kind.rawValue)
                try style.rejectUnknown(["background", "foreground"])
                var value = c.engine.styles[kind] ?? Style(background: "#000000", foreground: "#FFFFFF")
                try style.colour("background") { value.background = $0 }
                try style.colour("foreground") { value.foreground = $0 }
                c.engine.styles[kind] = value
            }
        }
        try reader.object("limits") { limits throws(ConfigurationError) in
            try limits.rejectUnknown([
                "maxBodyBytes", "connectionLimit", "connectionTimeout", "maxChannels", "eventBufferBytes",
                "connectionsPerClient", "connectionMemoryBytes", "writesPerSecond", "writeBurst", "publishQueue",
                "streamSendBufferBytes",
            ])
            try limits.integer("maxBodyBytes", in: 1...(16 * 1024 * 1024)) { c.maxBodyBytes = $0 }
            try limits.integer("connectionLimit", in: 1...1_000_000) { c.connectionLimit = $0 }
            try limits.integer("connectionTimeout", in: 0...86_400) { c.connectionTimeout = $0 }
            try limits.integer("maxChannels", in: 1...1_000_000) { c.maxChannels = $0 }
            try limits.integer("eventBufferBytes", in: 1024...(64 * 1024 * 1024)) { c.eventBufferBytes = $0 }
            try limits.integer("connectionsPerClient", in: 0...1_000_000) { c.connectionsPerClient = $0 }
            try limits.integer("connectionMemoryBytes", in: 4096...(16 * 1024 * 1024)) { c.connectionMemoryBytes = $0 }
            try limits.number("writesPerSecond", in: 0...1_000_000) { c.writesPerSecond = $0 }
            try limits.integer("writeBurst", in: 1...10_000_000) { c.writeBurst = $0 }
            try limits.integer("publishQueue", in: 1...10_000) { c.publishQueue = $0 }
            try limits.integer("streamSendBufferBytes", in: 0...(64 * 1024 * 1024)) { c.streamSendBufferBytes = $0 }
        }
        try CrossOriginPolicy.read(reader, into: &c)
        try readStatusBar(reader, into: &c)
        try reader.rejectUnknown(ConfigurationLoader.topLevelKeys)
        configuration = c
    }

    static let topLevelKeys = [
        "host", "port", "clock", "device", "orientation", "dataDir", "ephemeral", "threads", "accessLog",
        "heartbeatSeconds", "token", "readToken", "publish", "devices",
        "showStyle", "curve", "showDuration", "hideDuration", "rotationDuration", "durations", "completeDuration",
        "maxStickySeconds", "maxQueue", "historySize", "inset", "progressBar", "styles", "limits",
        "cors", "allowedHosts", "statusBar",
    ]

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

    public static let usage = """
        usage: overlayd [options]

        Broadcasts iOS-style status-bar notifications over HTTP (see README.md).

        options (each also an environment variable; flags win over the environment,
        which wins over the configuration file, which wins over the embedded defaults):
          --config FILE      JSON configuration file           OVERLAYD_CONFIG
          --host ADDRESS     listen address (127.0.0.1)         OVERLAYD_HOST
          --port PORT        listen port, 0 for any (8080)      OVERLAYD_PORT
          --clock MODE       real or manual (real)              OVERLAYD_CLOCK
          --device NAME      iphone, iphone-notch, ipad (ipad)  OVERLAYD_DEVICE
          --data-dir DIR     data directory (./data)            OVERLAYD_DATA_DIR
          --ephemeral        keep everything in memory          OVERLAYD_EPHEMERAL
          --max-queue N      waiting messages allowed (1000)    OVERLAYD_MAX_QUEUE
          --threads N        HTTP worker threads (2)            OVERLAYD_THREADS
          --access-log=BOOL  one line per request on stderr     OVERLAYD_ACCESS_LOG
          --publish URL      POST each version to URL (off)     OVERLAYD_PUBLISH
          (no flag)          token every write must carry       OVERLAYD_TOKEN
          (no flag)          token every read must carry        OVERLAYD_READ_TOKEN
          --healthcheck      exit 0 if the configured server answers /healthz
          --help             this text
          --version          the version

        Invalid configuration exits with status 2 and names the key at fault.
        """
}
