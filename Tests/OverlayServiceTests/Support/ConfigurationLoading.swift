@testable import OverlayService

// Configuration loaded as overlayd loads it (defaults, file, environment, flags), with the files
// given here as the only readable ones: the configuration suites and every suite that checks a
// setting's text share these.

extension Invocation {
    /// What overlayd would do with `arguments` and `environment`, `files` the only readable files.
    static func loaded(
        _ arguments: [String] = [], environment: [String: String] = [:], files: [String: String] = [:]
    ) throws(ConfigurationError) -> Invocation {
        try ConfigurationLoader.load(arguments: arguments, environment: environment) {
            (path: String) throws(ConfigurationError) -> [UInt8] in
            guard let text = files[path] else { throw ConfigurationError(key: path, reason: "no such test file") }
            return Array(text.utf8)
        }
    }
}

extension ServiceConfiguration {
    /// The configuration `Invocation.loaded` runs with; an error when it would not run.
    static func loaded(
        _ arguments: [String] = [], environment: [String: String] = [:], files: [String: String] = [:]
    ) throws -> ServiceConfiguration {
        guard case .run(let configuration) = try Invocation.loaded(arguments, environment: environment, files: files)
        else {
            throw ConfigurationError(key: "test", reason: "not a run invocation")
        }
        return configuration
    }

    /// The configuration loaded from `--config c.json` with `text` as that file.
    static func loaded(file text: String) throws -> ServiceConfiguration {
        try loaded(["--config", "c.json"], files: ["c.json": text])
    }
}

extension ConfigurationError {
    /// The error `Invocation.loaded` throws for these, or nil.
    static func loading(
        _ arguments: [String] = [], environment: [String: String] = [:], files: [String: String] = [:]
    ) -> ConfigurationError? {
        do {
            _ = try Invocation.loaded(arguments, environment: environment, files: files)
            return nil
        } catch {
            return error
        }
    }

    /// The error loading `--config c.json` with `text` as that file throws, or nil.
    static func loading(file text: String) -> ConfigurationError? {
        loading(["--config", "c.json"], files: ["c.json": text])
    }
}
