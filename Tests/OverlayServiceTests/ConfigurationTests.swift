import OverlayEngine
import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// Configuration (MODEL §7): embedded defaults, then the JSON file, then `OVERLAYD_*`, then flags;
/// every invalid value names its key, variable or flag. No sockets: files are injected.
@Suite("Configuration")
struct ConfigurationTests {
    /// `config/overlayd.json` in this checkout.
    static var defaultsFilePath: String { Repository.path("config/overlayd.json") }

    /// The shipped file holds every default: loading it gives exactly the embedded defaults.
    @Test func shippedFileIsTheDefaults() throws {
        let bytes = try ConfigurationLoader.readFile(Self.defaultsFilePath)
        let loaded = try ServiceConfiguration.loaded(
            ["--config", "overlayd.json"], files: ["overlayd.json": String(decoding: bytes, as: UTF8.self)])
        #expect(loaded == ServiceConfiguration())
        // Every top-level key is in the file, so that it documents them all.
        guard case .object(let members) = try JSONParser.parse(bytes) else {
            Issue.record("config/overlayd.json is not an object")
            return
        }
        #expect(Set(members.keys) == Set(ConfigurationSettings.table.keys(in: "")))
        // And the defaults are the model's (docs/MODEL.md).
        let defaults = ServiceConfiguration()
        #expect(defaults.host == "127.0.0.1")
        #expect(defaults.port == 8080)
        #expect(defaults.clock == .real)
        #expect(defaults.device == "ipad")
        #expect(defaults.maxBodyBytes == 16 * 1024)
        #expect(defaults.engine.maxQueue == 1000)
        #expect(defaults.engine.historySize == 100)
        #expect(defaults.engine.maxStickyDuration == .seconds(300))
        #expect(defaults.engine.durations == [.sent: .seconds(2), .failed: .seconds(3), .info: .seconds(2.5)])
        #expect(defaults.engineConfiguration.device == .ipad)
    }

    /// Nothing given: the embedded defaults; the real file read through the real reader works too.
    @Test func noConfiguration() throws {
        #expect(try ServiceConfiguration.loaded() == ServiceConfiguration())
        guard
            case .run(let real) = try ConfigurationLoader.load(
                arguments: ["--config=\(Self.defaultsFilePath)"], environment: [:])
        else {
            Issue.record("not a run invocation")
            return
        }
        #expect(real == ServiceConfiguration())
    }

    /// The file beats the defaults, the environment beats the file, flags beat the environment.
    @Test func precedence() throws {
        let file = #"{"port": 1111, "clock": "manual", "device": "iphone", "maxQueue": 5, "threads": 3}"#
        let files = ["f.json": file]
        let fromFile = try ServiceConfiguration.loaded(["--config", "f.json"], files: files)
        #expect(fromFile.port == 1111)
        #expect(fromFile.clock == .manual)
        #expect(fromFile.device == "iphone")
        #expect(fromFile.engine.maxQueue == 5)
        #expect(fromFile.engineConfiguration.device == .iphone)

        let environment = ["OVERLAYD_CONFIG": "f.json", "OVERLAYD_PORT": "2222", "OVERLAYD_DEVICE": "iphone-notch"]
        let fromEnvironment = try ServiceConfiguration.loaded(environment: environment, files: files)
        #expect(fromEnvironment.port == 2222)
        #expect(fromEnvironment.device == "iphone-notch")
        #expect(fromEnvironment.clock == .manual)
        #expect(fromEnvironment.engine.maxQueue == 5)

        let fromFlags = try ServiceConfiguration.loaded(
            ["--port", "3333", "--max-queue=7", "--ephemeral", "--access-log=false"], environment: environment,
            files: files)
        #expect(fromFlags.port == 3333)
        #expect(fromFlags.engine.maxQueue == 7)
        #expect(fromFlags.device == "iphone-notch")
        #expect(fromFlags.ephemeral == true)
        #expect(fromFlags.accessLog == .off)
        #expect(fromFlags.threads == 3)

        // --config on the command line beats OVERLAYD_CONFIG.
        let other = try ServiceConfiguration.loaded(
            ["--config", "g.json"], environment: ["OVERLAYD_CONFIG": "f.json"],
            files: ["f.json": file, "g.json": #"{"port": 4444}"#])
        #expect(other.port == 4444)
        #expect(other.clock == .real)
        // The last of a repeated flag wins.
        #expect(try ServiceConfiguration.loaded(["--port", "1", "--port", "2"]).port == 2)
    }

    /// A source that wins over an earlier one for the same key is recorded, for the start-up
    /// log: an image's variable winning over a mounted file's value is never silent. Values are
    /// not recorded (a token is a setting too).
    @Test func overridesAreRecorded() throws {
        let files = ["f.json": #"{"host": "0.0.0.0", "port": 1111, "token": "from-file"}"#]
        #expect(try ServiceConfiguration.loaded(["--config", "f.json"], files: files).overrides == [])
        let loaded = try ServiceConfiguration.loaded(
            ["--config", "f.json", "--port", "3333", "--clock", "manual"],
            environment: ["OVERLAYD_PORT": "2222", "OVERLAYD_TOKEN": "from-env", "OVERLAYD_DEVICE": "iphone"],
            files: files)
        #expect(
            loaded.overrides == [
                "port: OVERLAYD_PORT overrides f.json", "token: OVERLAYD_TOKEN overrides f.json",
                "port: --port overrides OVERLAYD_PORT",
            ])
        #expect(!loaded.overrides.joined().contains("from-"))
        #expect(
            try ServiceConfiguration.loaded(["--port", "1", "--port", "2"]).overrides == [
                "port: --port overrides --port"
            ])
    }

    /// The Docker image bakes its listen address and data directory into its config file (no
    /// ENV line that would silently beat a mounted file): the Dockerfile's edit of the shipped
    /// file gives a valid configuration with exactly those two settings changed.
    @Test func dockerImageConfiguration() throws {
        let dockerfile = String(
            decoding: try ConfigurationLoader.readFile(Repository.path("Dockerfile")), as: UTF8.self)
        #expect(!dockerfile.contains("OVERLAYD_HOST") && !dockerfile.contains("OVERLAYD_DATA_DIR"))
        #expect(!dockerfile.contains("OVERLAYD_PORT"))
        #expect(dockerfile.contains(#"s|"host": "127.0.0.1"|"host": "0.0.0.0"|"#))
        #expect(dockerfile.contains(#"s|"dataDir": "./data"|"dataDir": "/var/lib/overlayd"|"#))
        let shipped = String(decoding: try ConfigurationLoader.readFile(Self.defaultsFilePath), as: UTF8.self)
        let baked = shipped.replacing(#""host": "127.0.0.1""#, with: #""host": "0.0.0.0""#)
            .replacing(#""dataDir": "./data""#, with: #""dataDir": "/var/lib/overlayd""#)
        let image = try ServiceConfiguration.loaded(["--config", "image.json"], files: ["image.json": baked])
        var expected = ServiceConfiguration()
        expected.host = "0.0.0.0"
        expected.dataDirectory = "/var/lib/overlayd"
        #expect(image == expected)
    }

    /// Every environment variable and flag reaches its setting.
    @Test func everySetting() throws {
        let environment = [
            "OVERLAYD_HOST": "::1", "OVERLAYD_PORT": "0", "OVERLAYD_CLOCK": "manual", "OVERLAYD_DEVICE": "iphone",
            "OVERLAYD_DATA_DIR": "/tmp/x", "OVERLAYD_EPHEMERAL": "yes", "OVERLAYD_MAX_QUEUE": "0",
            "OVERLAYD_THREADS": "64", "OVERLAYD_ACCESS_LOG": "off",
        ]
        let fromEnvironment = try ServiceConfiguration.loaded(environment: environment)
        var expected = ServiceConfiguration()
        expected.host = "::1"
        expected.port = 0
        expected.clock = .manual
        expected.device = "iphone"
        expected.dataDirectory = "/tmp/x"
        expected.ephemeral = true
        expected.engine.maxQueue = 0
        expected.threads = 64
        expected.accessLog = .off
        #expect(fromEnvironment == expected)

        let fromFlags = try ServiceConfiguration.loaded([
            "--host", "::1", "--port", "0", "--clock", "manual", "--device", "iphone", "--data-dir", "/tmp/x",
            "--ephemeral=1", "--max-queue", "0", "--threads", "64", "--access-log=no",
        ])
        #expect(fromFlags == expected)
    }

    /// Every file key, nested ones included.
    @Test func fileKeys() throws {
        let file = """
            {"host": "0.0.0.0", "orientation": "landscapeLeft", "showStyle": "fade", "curve": "easeInOut",
             "showDuration": 0.5, "hideDuration": 0, "rotationDuration": 1, "completeDuration": 2,
             "maxStickySeconds": 10, "historySize": 3, "inset": 12.5, "dataDir": "d", "ephemeral": true,
             "accessLog": false, "threads": 4,
             "durations": {"sending": 5, "info": null},
             "devices": {"tv": {"width": 1920, "height": 1080, "statusBarHeight": 30}, "ipad": {"statusBarHeight": 24}},
             "device": "tv",
             "progressBar": {"height": 3, "position": "top", "capWidth": 4},
             "styles": {"info": {"background": "#abcdef"}},
             "limits": {"maxBodyBytes": 1000, "connectionLimit": 10, "connectionTimeout": 5}}
            """
        let c = try ServiceConfiguration.loaded(file: file)
        #expect(c.host == "0.0.0.0")
        #expect(c.engine.orientation == .landscapeLeft)
        #expect(c.engine.showStyle == .fade)
        #expect(c.engine.curve == .easeInOut)
        #expect(c.engine.showDuration == .seconds(0.5))
        #expect(c.engine.hideDuration == .zero)
        #expect(c.engine.rotationDuration == .seconds(1))
        #expect(c.engine.completeDuration == .seconds(2))
        #expect(c.engine.maxStickyDuration == .seconds(10))
        #expect(c.engine.historySize == 3)
        #expect(c.engine.inset == 12.5)
        #expect(c.dataDirectory == "d")
        #expect(c.ephemeral)
        #expect(c.accessLog == .off)
        #expect(c.threads == 4)
        #expect(c.engine.durations[.sending] == .seconds(5))
        #expect(c.engine.durations[.info] == nil)
        #expect(c.engine.durations[.sent] == .seconds(2))
        #expect(c.devices["tv"] == DeviceProfile(name: "tv", width: 1920, height: 1080, statusBarHeight: 30))
        #expect(c.devices["ipad"] == DeviceProfile(name: "ipad", width: 768, height: 1024, statusBarHeight: 24))
        #expect(c.engineConfiguration.device.name == "tv")
        #expect(c.engine.progressBarHeight == 3)
        #expect(c.engine.progressBarPosition == .top)
        #expect(c.engine.progressBarCapWidth == 4)
        #expect(c.engine.styles[.info] == Style(background: "#ABCDEF", foreground: "#FFFFFF"))
        #expect(c.maxBodyBytes == 1000)
        #expect(c.connectionLimit == 10)
        #expect(c.connectionTimeout == 5)
    }

    /// `priorities` takes numbers and names per kind, null for the default; `maxScheduled` a count.
    @Test func prioritiesAndMaxScheduled() throws {
        let file =
            #"{"priorities": {"info": "high", "failed": 3, "sent": null, "sending": "urgent"}, "maxScheduled": 5}"#
        let c = try ServiceConfiguration.loaded(file: file)
        #expect(c.engine.priorities[.info] == .high && c.engine.priorities[.failed] == .default)
        #expect(c.engine.priorities[.sent] == nil && c.engine.priorities[.sending] == .max)
        #expect(c.engine.priorities[.progress] == .default)
        #expect(c.engine.maxScheduled == 5)
        #expect(ServiceConfiguration().engine.priorities[.failed] == .high)
        #expect(ServiceConfiguration().engine.maxScheduled == 1000)
    }

    /// A bad file value names its (dotted) key.
    @Test(arguments: [
        (#"{"prot": 1}"#, "prot"),
        (#"{"port": "8080"}"#, "port"),
        (#"{"port": 65536}"#, "port"),
        (#"{"port": -1}"#, "port"),
        (#"{"port": 80.5}"#, "port"),
        (#"{"clock": "fast"}"#, "clock"),
        (#"{"threads": 0}"#, "threads"),
        (#"{"ephemeral": "yes"}"#, "ephemeral"),
        (#"{"dataDir": ""}"#, "dataDir"),
        (#"{"device": "pixel"}"#, "device"),
        (#"{"device": 5}"#, "device"),
        (#"{"orientation": "up"}"#, "orientation"),
        (#"{"showStyle": "zoom"}"#, "showStyle"),
        (#"{"showDuration": 61}"#, "showDuration"),
        (#"{"showDuration": -0.1}"#, "showDuration"),
        (#"{"durations": {"info": 0}}"#, "durations.info"),
        (#"{"durations": {"urgent": 1}}"#, "durations.urgent"),
        (#"{"durations": {"sent": "2"}}"#, "durations.sent"),
        (#"{"durations": 2}"#, "durations"),
        (#"{"maxQueue": 1e7}"#, "maxQueue"),
        (#"{"maxStickySeconds": 0}"#, "maxStickySeconds"),
        (#"{"maxScheduled": -1}"#, "maxScheduled"),
        (#"{"maxScheduled": 1.5}"#, "maxScheduled"),
        (#"{"priorities": {"info": 0}}"#, "priorities.info"),
        (#"{"priorities": {"info": 6}}"#, "priorities.info"),
        (#"{"priorities": {"info": "loud"}}"#, "priorities.info"),
        (#"{"priorities": {"urgent": 5}}"#, "priorities.urgent"),
        (#"{"priorities": 4}"#, "priorities"),
        (#"{"inset": 400}"#, "inset"),
        (#"{"devices": {"tv": {"width": 100}}}"#, "devices.tv"),
        (#"{"devices": {"ipad": {"depth": 1}}}"#, "devices.ipad.depth"),
        (#"{"devices": {"ipad": {"width": 0}}}"#, "devices.ipad.width"),
        (#"{"devices": {"bad name": {"width": 1, "height": 1, "statusBarHeight": 1}}}"#, "devices.bad name"),
        (#"{"progressBar": {"position": "left"}}"#, "progressBar.position"),
        (#"{"progressBar": {"height": 0}}"#, "progressBar.height"),
        (#"{"progressBar": {"colour": 1}}"#, "progressBar.colour"),
        (##"{"styles": {"info": {"background": "red"}}}"##, "styles.info.background"),
        (##"{"styles": {"info": {"background": "#12345"}}}"##, "styles.info.background"),
        (##"{"styles": {"info": {"foreground": "#GGGGGG"}}}"##, "styles.info.foreground"),
        (##"{"styles": {"info": {"border": "#000000"}}}"##, "styles.info.border"),
        (##"{"styles": {"urgent": {}}}"##, "styles.urgent"),
        (#"{"limits": {"maxBodyBytes": 0}}"#, "limits.maxBodyBytes"),
        (#"{"limits": {"timeout": 1}}"#, "limits.timeout"),
        (#"{"host": "example.com"}"#, "host"),
        (#"{"host": "256.1.1.1"}"#, "host"),
        (#"{"host": 127}"#, "host"),
    ])
    func invalidFileValue(json: String, key: String) {
        let error = ConfigurationError.loading(file: json)
        #expect(error?.key == key, "\(String(describing: error))")
        #expect(error?.reason.isEmpty == false)
    }

    /// A file that is missing, not JSON, or not an object names the file (or the configuration).
    @Test func invalidFile() {
        #expect(ConfigurationError.loading(["--config", "missing.json"])?.key == "missing.json")
        #expect(ConfigurationError.loading(file: "{port: 1}")?.key == "c.json")
        #expect(ConfigurationError.loading(file: "[]")?.key == "configuration")
        #expect(ConfigurationError.loading(environment: ["OVERLAYD_CONFIG": "e.json"])?.key == "e.json")
        // An empty OVERLAYD_CONFIG means no file.
        #expect(ConfigurationError.loading(environment: ["OVERLAYD_CONFIG": ""]) == nil)
        let real = Result { () throws(ConfigurationError) in
            try ConfigurationLoader.load(arguments: [], environment: ["OVERLAYD_CONFIG": "/no/such/overlayd.json"])
        }
        // The real reader names the path it could not open.
        if case .failure(let error) = real {
            #expect(error.key == "/no/such/overlayd.json")
            #expect(error.reason.contains("cannot open"))
        } else {
            Issue.record("a missing configuration file was accepted")
        }
    }

    /// A bad environment value names its variable.
    @Test(arguments: [
        ("OVERLAYD_PORT", "eighty"), ("OVERLAYD_PORT", "70000"), ("OVERLAYD_PORT", "1.5"), ("OVERLAYD_CLOCK", "slow"),
        ("OVERLAYD_EPHEMERAL", "maybe"), ("OVERLAYD_MAX_QUEUE", "-1"), ("OVERLAYD_THREADS", "0"),
        ("OVERLAYD_ACCESS_LOG", "2"),
    ])
    func invalidEnvironmentValue(variable: String, value: String) {
        let error = ConfigurationError.loading(environment: [variable: value])
        #expect(error?.key == variable, "\(String(describing: error))")
    }

    /// A bad flag value names the flag; unknown flags and flags without a value are errors too.
    @Test(arguments: [
        (["--port", "eighty"], "--port"), (["--port=99999"], "--port"), (["--clock", "slow"], "--clock"),
        (["--threads", "65"], "--threads"), (["--max-queue", "x"], "--max-queue"),
        (["--ephemeral=perhaps"], "--ephemeral"), (["--data-dir="], "--data-dir"),
        (["--verbose"], "--verbose"), (["-p", "80"], "-p"), (["port=80"], "port=80"), (["--bogus=1"], "--bogus=1"),
        (["--port"], "--port"), (["--config"], "--config"), (["--clock", "manual", "--device"], "--device"),
    ])
    func invalidFlag(arguments: [String], key: String) {
        let error = ConfigurationError.loading(arguments)
        #expect(error?.key == key, "\(String(describing: error))")
        #expect(error.map { "\($0)".hasPrefix(key + ": ") } == true)
    }

    /// Rules across keys name the key: an unknown device given by flag, a host that is not an address.
    @Test func crossKeyRules() {
        #expect(ConfigurationError.loading(["--device", "pixel"])?.key == "device")
        let known = ConfigurationError.loading(["--device", "pixel"])?.reason ?? ""
        #expect(["iphone", "iphone-notch", "ipad"].allSatisfy { known.contains($0) }, "\(known)")
        #expect(ConfigurationError.loading(environment: ["OVERLAYD_HOST": "localhost."])?.key == "host")
        #expect(ConfigurationError.loading(["--host", "example.com"])?.key == "host")
        #expect(ConfigurationError.loading(["--host", "localhost"]) == nil)
        #expect(ConfigurationError.loading(["--host", "[::1]"]) == nil)
        // A new device may be selected once it is defined in the file.
        let files = ["c.json": #"{"devices": {"tv": {"width": 1920, "height": 1080, "statusBarHeight": 30}}}"#]
        #expect(ConfigurationError.loading(["--config", "c.json", "--device", "tv"], files: files) == nil)
    }

    /// --help and --version win over everything else on the line, even invalid flags after them.
    @Test func helpAndVersion() throws {
        #expect(try Invocation.loaded(["--help"]) == .help)
        #expect(try Invocation.loaded(["-h"]) == .help)
        #expect(try Invocation.loaded(["--port", "1", "--help", "--bogus"]) == .help)
        #expect(try Invocation.loaded(["--version"]) == .version)
        #expect(try Invocation.loaded(["--version", "--port", "x"]) == .version)
        #expect(ConfigurationLoader.usage.contains("usage: overlayd"))
        for setting in ConfigurationSettings.table.rows {
            if let flag = setting.flag { #expect(ConfigurationLoader.usage.contains(flag.name), "\(flag.name)") }
            if let variable = setting.variable { #expect(ConfigurationLoader.usage.contains(variable), "\(variable)") }
        }
    }
}
