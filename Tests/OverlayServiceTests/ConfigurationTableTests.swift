import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// The settings table (`ConfigurationSettings`) is the one list of settings: `--help`, the flags
/// the loader takes, the shipped and example configuration files and docs/CONFIGURATION.md all
/// agree with it.
@Suite("Configuration table")
struct ConfigurationTableTests {
    static let table = ConfigurationSettings.table

    /// The checkout's file at `path`; an error, not an empty text, when it is missing.
    static func repositoryFile(_ path: String) throws -> String {
        String(decoding: try ConfigurationLoader.readFile(Repository.path(path)), as: UTF8.self)
    }

    /// The dotted keys of a configuration file's settings: each member, down through nested
    /// objects until one is a row's value.
    static func settingKeys(_ json: JSONValue, under path: String = "") -> [String] {
        guard case .object(let members) = json else { return [path] }
        return members.keys.sorted().flatMap { name in
            let key = path.isEmpty ? name : "\(path).\(name)"
            return table.row(key) != nil ? [key] : settingKeys(members[name]!, under: key)
        }
    }

    /// A key is a row or an object of rows, never both, and each key, flag and variable is one row's.
    @Test func rowsAreDistinct() {
        let keys = Self.table.rows.map(\.key)
        #expect(Set(keys).count == keys.count)
        for key in keys { #expect(!Self.table.isObject(key), "\(key) is a row and an object") }
        let flags = Self.table.rows.compactMap(\.flag?.name)
        #expect(Set(flags).count == flags.count)
        let variables = Self.table.rows.compactMap(\.variable)
        #expect(Set(variables).count == variables.count)
        #expect(variables.allSatisfy { $0.hasPrefix("OVERLAYD_") })
        #expect(
            Self.table.objects.sorted() == [
                "", "access", "cors", "limits", "pill", "progressBar", "statusBar", "statusBar.colours", "text",
                "webhooks", "webhooks.github",
            ])
    }

    /// `--help` lists exactly the rows with a flag or a variable (and the options that are not
    /// settings), each with its flag, variable, description and default on one line; the loader
    /// takes every flag it lists.
    @Test func helpFollowsTheTable() throws {
        let lines = ConfigurationLoader.usage.split(separator: "\n").map(String.init)
        let options = lines.filter { $0.hasPrefix("  --") || $0.hasPrefix("  (no flag)") }
        let given = Self.table.rows.filter { $0.flag != nil || $0.variable != nil }
        #expect(options.count == given.count + 4)  // --config, --healthcheck, --help, --version
        for setting in given {
            let shown = setting.flag.map { "  \($0.usage) " } ?? "  (no flag) "
            let line = options.first { $0.hasPrefix(shown) && (setting.variable.map($0.hasSuffix) ?? true) }
            #expect(line != nil, "\(setting.key) is not in --help")
            #expect(line?.contains(setting.summary) == true, "\(setting.key)")
            if let shownDefault = setting.shownDefault { #expect(line?.contains("(\(shownDefault))") == true) }
        }
        // Whatever --help shows as a flag is one the loader takes, and no other is.
        let shownFlags = options.map { String($0.dropFirst(2).prefix { $0 != " " && $0 != "=" }) }
            .filter { $0.hasPrefix("--") }
        #expect(
            Set(shownFlags)
                == Set(Self.table.rows.compactMap(\.flag?.name) + ["--config", "--healthcheck", "--help", "--version"]))
        for setting in given {
            guard let flag = setting.flag else { continue }
            let error = ConfigurationError.loading([flag.name + "=x"])
            #expect(error?.reason.contains("unknown option") != true, "\(flag.name)")
        }
        #expect(ConfigurationError.loading(["--heartbeat-seconds=1"])?.reason.contains("unknown option") == true)
    }

    /// The default `--help` shows is the shipped file's value (null shown as "off").
    @Test func helpDefaultsAreTheShippedOnes() throws {
        let shipped = try JSONParser.parse(Array(try Self.repositoryFile("config/overlayd.json").utf8))
        for setting in Self.table.rows {
            guard let shownDefault = setting.shownDefault else { continue }
            var value = shipped
            for part in setting.key.split(separator: ".") {
                guard case .object(let members) = value, let member = members[String(part)] else {
                    Issue.record("\(setting.key) is not in config/overlayd.json")
                    continue
                }
                value = member
            }
            let text: String? =
                switch value {
                case .string(let text): text
                case .number(let number): number == number.rounded() ? String(Int(number)) : String(number)
                case .null: "off"
                default: nil
                }
            #expect(text == shownDefault, "\(setting.key)")
        }
    }

    /// The shipped file holds every setting of the table and nothing else; the deployment example
    /// holds only settings of the table.
    @Test func exampleFilesAreRows() throws {
        let shipped = try JSONParser.parse(Array(try Self.repositoryFile("config/overlayd.json").utf8))
        #expect(Self.settingKeys(shipped).sorted() == Self.table.rows.map(\.key).sorted())
        let deployed = try JSONParser.parse(Array(try Self.repositoryFile("deploy/overlayd.json").utf8))
        let keys = Self.settingKeys(deployed)
        #expect(!keys.isEmpty)
        for key in keys { #expect(Self.table.row(key) != nil, "deploy/overlayd.json: \(key) is not a setting") }
        var configuration = ServiceConfiguration()
        #expect(throws: Never.self) { try Self.table.apply(deployed, to: &configuration) }
    }

    /// docs/CONFIGURATION.md's table has a row for each setting and no other, each naming the
    /// setting's flag and variable, if any, and no other.
    @Test func docsListTheTable() throws {
        let docs = try Self.repositoryFile("docs/CONFIGURATION.md")
        var documented: [String: String] = [:]
        for line in docs.split(separator: "\n") where line.hasPrefix("| `") {
            let columns = line.split(separator: "|", omittingEmptySubsequences: false).map {
                $0.trimmingSpaces()
            }
            documented[String(columns[1].dropFirst().dropLast())] = columns[3]
        }
        #expect(documented.keys.sorted() == Self.table.rows.map(\.key).sorted())
        for setting in Self.table.rows {
            guard let column = documented[setting.key] else { continue }
            // `--access-log=BOOL` names --access-log.
            let named = column.split(separator: "`", omittingEmptySubsequences: false).enumerated().filter {
                $0.offset % 2 == 1
            }.map {
                String($0.element.prefix { $0 != "=" })
            }
            #expect(named == [setting.flag?.name, setting.variable].compactMap { $0 }, "\(setting.key)")
        }
    }
}
