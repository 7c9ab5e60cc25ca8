import OverlayEngine
import TextMeasure

/// Every setting of the configuration, one row each, in the order of `config/overlayd.json`: its
/// key in the file (dotted for a nested one), how it is read and where it is stored, and the
/// flag and environment variable that also set it. Reading the file, the unknown-key check of
/// each of its objects, the variables and flags `ConfigurationLoader` takes and `--help` all
/// follow from these rows; docs/CONFIGURATION.md documents them (a test keeps the two agreeing).
/// A new setting is one row here and its place in `ServiceConfiguration`.
enum ConfigurationSettings {
    typealias Row = Setting<ServiceConfiguration>

    static let table = SettingTable<ServiceConfiguration>(listening + overlay + statusBar + limits)

    private static let listening: [Row] = [
        Row(
            .string("host"), \.host, "listen address", default: "127.0.0.1", flag: .option("--host", "ADDRESS"),
            variable: "OVERLAYD_HOST"),
        Row(
            .whole("port").within(0...65535), \.port, "listen port, 0 for any", default: "8080",
            flag: .option("--port", "PORT"), variable: "OVERLAYD_PORT"),
        Row(
            .choice("clock"), \.clock, "real or manual", default: "real", flag: .option("--clock", "MODE"),
            variable: "OVERLAYD_CLOCK"),
        Row(
            .string("device"), \.device, DeviceProfile.builtIn.map(\.name).joined(separator: ", "), default: "ipad",
            flag: .option("--device", "NAME"), variable: "OVERLAYD_DEVICE"),
        Row(.choice("orientation"), \.engine.orientation, "the orientation it starts in"),
        Row(.choice("presentation"), \.engine.presentation, "statusBar, fullWidth, pill or auto"),
        Row(
            .string("dataDir").checked { $0.isEmpty ? "must not be empty" : nil }, \.dataDirectory, "data directory",
            default: "./data", flag: .option("--data-dir", "DIR"), variable: "OVERLAYD_DATA_DIR"),
        Row(
            .bool("ephemeral"), \.ephemeral, "keep everything in memory", flag: .switch("--ephemeral"),
            variable: "OVERLAYD_EPHEMERAL"),
        Row(
            .whole("threads").within(1...64), \.threads, "HTTP worker threads", default: "2",
            flag: .option("--threads", "N"), variable: "OVERLAYD_THREADS"),
        Row(
            .accessLogFormat("accessLog"), \.accessLog, "one line per request on stderr: text, json or false",
            flag: .switch("--access-log", value: "FORMAT"),
            variable: "OVERLAYD_ACCESS_LOG"),
        Row(
            .number("channelIdleSeconds").within(0...31_536_000), \.channelIdleSeconds,
            "seconds an idle channel is kept, 0 for ever"),
        Row(.number("heartbeatSeconds").within(0.01...3600), \.heartbeatSeconds, "seconds between keep-alive comments"),
        // Tokens have no flag: it would show in `ps`.
        Row(.token("token"), \.token, "token every write must carry", variable: "OVERLAYD_TOKEN", emptyIsOff: true),
        Row(
            .token("readToken"), \.readToken, "token every read must carry", variable: "OVERLAYD_READ_TOKEN",
            emptyIsOff: true),
        Row(
            "access.anonymous", "what a request without a credential may do: read-write, read, write, none or grants",
            read: AccessSettings.readAnonymous),
        Row("access.jwt", "signed tokens: algorithm, key, issuer, audience", read: AccessSettings.readJWT),
        Row(.bool("access.tokens"), \.tokensEnabled, "the token API at /tokens"),
        Row(
            .token("webhooks.github.secret"), \.githubSecret, "the secret GitHub signs its deliveries with",
            variable: "OVERLAYD_GITHUB_SECRET", emptyIsOff: true),
        Row("webhooks.templates", "the operator's webhook templates by name", read: WebhookTemplateReader.read),
        Row("cors.allowOrigins", "origins whose pages may read", read: CrossOriginPolicy.readAllowedOrigins),
        Row("allowedHosts", "host names besides loopback ones", read: CrossOriginPolicy.readAllowedHosts),
        Row(
            .publishTemplate("publish"), \.publish, "POST each version to URL", default: "off",
            flag: .option("--publish", "URL"), variable: "OVERLAYD_PUBLISH", emptyIsOff: true),
        Row("devices", "device profiles by name, merged with the built-in ones", read: readDevices),
    ]

    private static let overlay: [Row] = [
        Row(.choice("showStyle"), \.engine.showStyle, "how the overlay shows and hides"),
        Row(.choice("curve"), \.engine.curve, "the timing curve of every animation"),
        Row(.seconds("showDuration", in: 0...60), \.engine.showDuration, "seconds of the show animation"),
        Row(.seconds("hideDuration", in: 0...60), \.engine.hideDuration, "seconds of the hide animation"),
        Row(.seconds("rotationDuration", in: 0...60), \.engine.rotationDuration, "seconds of half a rotation"),
        Row(.seconds("bounceDuration", in: 0...60), \.engine.bounceDuration, "seconds of the bounce show"),
        Row(.choice("messageChange"), \.engine.messageChange, "how the label changes while visible"),
        Row(.seconds("riseDuration", in: 0...60), \.engine.riseDuration, "seconds of a rise"),
        Row(
            .seconds("minimumVisible", in: 0...60), \.engine.minimumVisible,
            "seconds a message shows before an immediate one replaces it"),
        Row(.seconds("maxHoldSeconds", in: 0.001...3600), \.engine.maxHoldDuration, "longest hold of the overlay"),
        Row("durations", durations, \.engine.durations, "seconds each kind stays once shown"),
        Row(.seconds("completeDuration", in: 0.001...3600), \.engine.completeDuration, "seconds once complete"),
        Row(.seconds("maxStickySeconds", in: 0.001...86_400), \.engine.maxStickyDuration, "longest sticky message"),
        Row(
            .whole("maxQueue").within(0...1_000_000), \.engine.maxQueue, "waiting messages allowed", default: "1000",
            flag: .option("--max-queue", "N"), variable: "OVERLAYD_MAX_QUEUE"),
        Row(
            .whole("maxScheduled").within(0...100_000), \.engine.maxScheduled, "messages waiting for their time",
            default: "1000"),
        Row("priorities", priorities, \.engine.priorities, "priority of each kind's messages (1-5 or a name)"),
        Row(.whole("historySize").within(0...100_000), \.engine.historySize, "ended messages kept"),
        Row(.number("inset").within(0...10_000), \.engine.inset, "the label's inset"),
        Row(.number("pill.height").within(1...10_000), \.engine.pillHeight, "the pill's height"),
        Row(
            .string("text.font").checked { $0.isEmpty ? "must not be empty" : nil }, \.text.path,
            "the font file texts are measured with", default: FontMeasurer.defaultFontPath),
        Row(.number("text.titleSize").within(1...1000), \.text.titleSize, "the title's size in points"),
        Row(.number("text.subtitleSize").within(1...1000), \.text.subtitleSize, "the subtitle's size in points"),
        Row(.number("progressBar.height").within(0.001...10_000), \.engine.progressBarHeight, "the bar's height"),
        Row(.choice("progressBar.position"), \.engine.progressBarPosition, "where the bar sits"),
        Row(.number("progressBar.capWidth").within(0...10_000), \.engine.progressBarCapWidth, "its caps' width"),
        Row("styles", styles, \.engine.styles, "colours of each kind"),
    ]

    private static let statusBar: [Row] = [
        Row(.choice("statusBar.appearance"), \.engine.statusBar.appearance, "who decides the status bar"),
        Row(.choice("statusBar.style"), \.engine.statusBar.style, "the status bar's style at launch"),
        Row(.bool("statusBar.hiddenAtLaunch"), \.engine.statusBar.hiddenAtLaunch, "hidden at launch"),
        Row(
            .seconds("statusBar.animationDuration", in: 0...60), \.engine.statusBar.animationDuration,
            "seconds of its hide or show"),
        Row("statusBar.colours.lightContent", "colours under a light bar, or null") {
            (value, name, configuration) throws(ConfigurationError) in
            configuration.engine.statusBar.lightContentColours =
                value.isNull ? nil : try colourPair(value, name)
        },
        Row("statusBar.colours.darkContent", "colours under a dark bar") {
            (value, name, configuration) throws(ConfigurationError) in
            configuration.engine.statusBar.darkContentColours = try colourPair(value, name)
        },
    ]

    private static let limits: [Row] = [
        Row(.whole("limits.maxBodyBytes").within(1...(16 << 20)), \.maxBodyBytes, "largest request body"),
        Row(
            .whole("limits.webhookBodyBytes").within(1...(16 << 20)), \.webhookBodyBytes,
            "largest body of a template's write"),
        Row(.whole("limits.connectionLimit").within(1...1_000_000), \.connectionLimit, "connections open at once"),
        Row(.whole("limits.connectionTimeout").within(0...86_400), \.connectionTimeout, "idle seconds allowed"),
        Row(.whole("limits.maxChannels").within(1...1_000_000), \.maxChannels, "channels that may exist"),
        Row(.whole("limits.eventBufferBytes").within(1024...(64 << 20)), \.eventBufferBytes, "a slow reader's buffer"),
        Row(
            .whole("limits.connectionsPerClient").within(0...1_000_000), \.connectionsPerClient,
            "connections from one address"),
        Row(
            .whole("limits.connectionMemoryBytes").within(4096...(16 << 20)), \.connectionMemoryBytes,
            "memory per connection"),
        Row(.number("limits.writesPerSecond").within(0...1_000_000), \.writesPerSecond, "writes per second per client"),
        Row(.whole("limits.writeBurst").within(1...10_000_000), \.writeBurst, "writes at once per client"),
        Row(.whole("limits.publishQueue").within(1...10_000), \.publishQueue, "versions waiting to be published"),
        Row(
            .whole("limits.streamSendBufferBytes").within(0...(64 << 20)), \.streamSendBufferBytes,
            "an event stream's send queue"),
        Row(
            .whole("limits.sendBufferBytes").within(0...(64 << 20)), \.sendBufferBytes,
            "any connection's send queue"),
        Row(
            .whole("limits.maxMemoryBytes").within((1 << 20)...(1 << 40)), \.maxMemoryBytes,
            "memory every channel's messages may hold"),
        Row(.whole("limits.maxTokens").within(0...1_000_000), \.maxTokens, "live tokens made through the API"),
        Row(.whole("limits.maxPageBytes").within((64 << 10)...(64 << 20)), \.maxPageBytes, "a page of messages"),
    ]
}
