import ServiceTestSupport
import Testing

@testable import OverlayService

/// Values as the configuration's sources give them: JSON in the file, text in a variable or a
/// flag, read by the same `FieldValue` readers as a request's fields; what an empty variable
/// means; and the unknown-key check of every object the file may hold.
@Suite("Configuration text values")
struct ConfigurationTextTests {
    static let table = ConfigurationSettings.table

    /// The rows whose flag is a switch: the booleans given on the command line.
    static var booleans: [Setting<ServiceConfiguration>] { table.rows.filter { $0.flag?.standsAlone == true } }

    static func file(_ json: String) throws -> ServiceConfiguration {
        try ServiceConfiguration.loaded(file: json)
    }

    /// A boolean reads the same from the file (JSON true/false), a variable and a flag (text, by
    /// the one bool reader, as in a request).
    @Test(arguments: ["true", "TRUE", "1", "yes", "On", "false", "0", "no", "OFF", " off "])
    func aBooleanReadsTheSameEverywhere(text: String) throws {
        let expected = try FieldValue.text(text).bool()
        #expect(!Self.booleans.isEmpty)
        for setting in Self.booleans {
            let fromFile = try Self.file(#"{"\#(setting.key)": \#(expected)}"#)
            let fromVariable = try ServiceConfiguration.loaded(environment: [setting.variable!: text])
            let fromFlag = try ServiceConfiguration.loaded(["\(setting.flag!.name)=\(text)"])
            #expect(fromVariable == fromFile, "\(setting.key)")
            #expect(fromFlag == fromFile, "\(setting.key)")
        }
    }

    /// A boolean's flag alone is true, as a bare `?immediate` is.
    @Test func aSwitchAloneIsTrue() throws {
        for setting in Self.booleans {
            #expect(
                try ServiceConfiguration.loaded([setting.flag!.name]) == Self.file(#"{"\#(setting.key)": true}"#))
        }
    }

    /// What the bool reader refuses, a variable and a flag refuse with its reason, naming
    /// themselves; the file takes only JSON booleans, not their text.
    @Test(arguments: ["maybe", "2", "tru", "y"])
    func aBooleanIsRefusedTheSameEverywhere(text: String) throws {
        let reason = #expect(throws: FieldProblem.self) { try FieldValue.text(text).bool() }?.reason
        // accessLog also takes "text" and "json", so its reason says so (AccessLogTests.badValue).
        for setting in Self.booleans where setting.key != "accessLog" {
            let variable = setting.variable!
            let fromVariable = ConfigurationError.loading(environment: [variable: text])
            #expect(fromVariable == ConfigurationError(key: variable, reason: reason ?? ""))
            let flag = setting.flag!.name
            #expect(
                ConfigurationError.loading(["\(flag)=\(text)"]) == ConfigurationError(key: flag, reason: reason ?? ""))
            let fromFile = ConfigurationError.loading(file: #"{"\#(setting.key)": "yes"}"#)
            #expect(fromFile?.key == setting.key)
        }
        #expect(
            ConfigurationError.loading(file: #"{"statusBar": {"hiddenAtLaunch": 1}}"#)?.key
                == "statusBar.hiddenAtLaunch")
    }

    /// An empty variable is one not set: the file's value (or the default) stays, and no
    /// override is recorded. A blank one is not empty and is read.
    @Test func anEmptyVariableIsNotSet() throws {
        let file = """
            {"host": "::1", "port": 1111, "clock": "manual", "device": "iphone", "dataDir": "d",
             "ephemeral": true, "threads": 3, "accessLog": false, "maxQueue": 5}
            """
        let unset = Self.table.rows.filter { $0.variable != nil && !$0.emptyIsOff }
        let fileKeys = ["host", "port", "clock", "device", "dataDir", "ephemeral", "threads", "accessLog", "maxQueue"]
        #expect(unset.map(\.key).sorted() == fileKeys.sorted(), "a new variable needs a value in this test's file")
        let empty = Dictionary(uniqueKeysWithValues: unset.map { ($0.variable!, "") })
        let loaded = try ServiceConfiguration.loaded(
            ["--config", "c.json"], environment: empty, files: ["c.json": file])
        #expect(loaded == (try Self.file(file)))
        #expect(loaded.overrides == [])
        #expect(try ServiceConfiguration.loaded(environment: empty) == ServiceConfiguration())
        // OVERLAYD_DATA_DIR= is no longer "must not be empty": it is not given at all.
        #expect(ConfigurationError.loading(environment: ["OVERLAYD_DATA_DIR": ""]) == nil)
        #expect(ConfigurationError.loading(environment: ["OVERLAYD_PORT": " "])?.key == "OVERLAYD_PORT")
    }

    /// The settings that can be off take an empty variable as off, over the file; every other
    /// setting with a variable takes it as not set.
    @Test func anEmptyVariableTurnsOffWhatCanBeOff() throws {
        #expect(
            Self.table.rows.filter(\.emptyIsOff).map(\.key) == [
                "token", "readToken", "webhooks.github.secret", "publish",
            ])
        let file = #"{"token": "file-token", "readToken": "read-token", "publish": "http://f/{channel}"}"#
        let environment = ["OVERLAYD_TOKEN": "", "OVERLAYD_READ_TOKEN": "", "OVERLAYD_PUBLISH": ""]
        let loaded = try ServiceConfiguration.loaded(
            ["--config", "c.json"], environment: environment, files: ["c.json": file])
        #expect(loaded.token == nil && loaded.readToken == nil && loaded.publish == nil)
        #expect(
            loaded.overrides == [
                "token: OVERLAYD_TOKEN overrides c.json", "readToken: OVERLAYD_READ_TOKEN overrides c.json",
                "publish: OVERLAYD_PUBLISH overrides c.json",
            ])
    }

    /// A flag given empty is given: refused by its reader, or off where empty is off.
    @Test func anEmptyFlagIsGiven() throws {
        #expect(ConfigurationError.loading(["--port="])?.key == "--port")
        #expect(
            ConfigurationError.loading(["--data-dir="])
                == ConfigurationError(key: "--data-dir", reason: "must not be empty"))
        #expect(
            ConfigurationError.loading(["--ephemeral="])
                == ConfigurationError(key: "--ephemeral", reason: "must be true or false, not an empty value"))
        #expect(
            try ServiceConfiguration.loaded(
                ["--publish="], environment: ["OVERLAYD_PUBLISH": "http://e/{channel}"]
            ).publish == nil)
    }

    /// `{"bogus": 1}` in every object of the table, and in the objects of their own, is refused
    /// by its dotted path.
    @Test func anUnknownKeyIsNamedAtEveryLevel() {
        func nested(_ path: String, _ inner: String) -> String {
            path.split(separator: ".").reversed().reduce(inner) { #"{"\#($1)": \#($0)}"# }
        }
        let own = [
            "devices.ipad", "devices.tv", "durations", "styles.info", "statusBar.colours.lightContent",
            "statusBar.colours.darkContent",
        ]
        for object in Self.table.objects + own {
            let json = nested(object, #"{"bogus": 1}"#)
            let error = ConfigurationError.loading(file: json)
            let key = object.isEmpty ? "bogus" : "\(object).bogus"
            #expect(error == ConfigurationError(key: key, reason: "unknown key"), "\(json)")
        }
        // Keyed by kind: a kind that does not exist is the unknown key.
        let styles = ConfigurationError.loading(file: #"{"styles": {"bogus": {}}}"#)
        #expect(styles == ConfigurationError(key: "styles.bogus", reason: "unknown key"))
    }
}
