import OverlayService
import Testing

@testable import OverlayPublisher

/// `publish` and `limits.publishQueue`: off by default, set from the file, the environment or
/// a flag, and refused with the key named when they cannot work.
@Suite("Publish configuration")
struct PublishConfigurationTests {
    private func load(
        _ arguments: [String] = [], environment: [String: String] = [:], file: String? = nil
    ) throws(ConfigurationError) -> ServiceConfiguration {
        var environment = environment
        if file != nil { environment["OVERLAYD_CONFIG"] = "/config.json" }
        let invocation = try ConfigurationLoader.load(
            arguments: arguments, environment: environment,
            readFile: { _ throws(ConfigurationError) in Array((file ?? "").utf8) })
        guard case .run(let configuration) = invocation else {
            throw ConfigurationError(key: "test", reason: "not a run")
        }
        return configuration
    }

    private func problem(
        _ arguments: [String] = [], environment: [String: String] = [:], file: String? = nil
    ) -> ConfigurationError? {
        do {
            _ = try load(arguments, environment: environment, file: file)
            return nil
        } catch {
            return error
        }
    }

    @Test func offByDefault() throws {
        let configuration = try load()
        #expect(configuration.publish == nil)
        #expect(configuration.publishQueue == 16)
    }

    @Test func fromTheFileTheEnvironmentAndAFlag() throws {
        let template = "http://127.0.0.1:8090/pub/{channel}"
        #expect(try load(file: #"{"publish": "\#(template)", "limits": {"publishQueue": 1}}"#).publish == template)
        #expect(try load(file: #"{"limits": {"publishQueue": 1}}"#).publishQueue == 1)
        #expect(try load(environment: ["OVERLAYD_PUBLISH": template]).publish == template)
        #expect(try load(["--publish", template]).publish == template)
        #expect(
            try load(["--publish=https://pub.example/p/{channel}/x"]).publish == "https://pub.example/p/{channel}/x")
        // Later wins: the flag over the environment over the file; an empty value turns it off.
        let layered = try load(
            ["--publish", "http://flag/{channel}"], environment: ["OVERLAYD_PUBLISH": "http://env/{channel}"],
            file: #"{"publish": "http://file/{channel}"}"#)
        #expect(layered.publish == "http://flag/{channel}")
        #expect(
            try load(environment: ["OVERLAYD_PUBLISH": ""], file: #"{"publish": "http://f/{channel}"}"#).publish == nil)
        #expect(try load(file: #"{"publish": null}"#).publish == nil)
    }

    @Test(arguments: [
        "ftp://host/{channel}", "http://host/pub", "http://host/{channel}/{channel}", "http://{channel}/pub",
        "http:///{channel}", "http://host/pub {channel}", "http://host/\"{channel}\"", "http://hôst/{channel}",
        "/pub/{channel}",
    ])
    func aTemplateThatCannotWorkIsRefused(template: String) {
        let error = problem(file: #"{"publish": "\#(template.replacingQuotes())"}"#)
        #expect(error?.key == "publish")
        #expect(problem(environment: ["OVERLAYD_PUBLISH": template])?.key == "OVERLAYD_PUBLISH")
        #expect(problem(["--publish", template])?.key == "--publish")
    }

    @Test func aTemplateMustBeAString() {
        #expect(problem(file: #"{"publish": 8090}"#)?.key == "publish")
        #expect(problem(file: #"{"publish": {"url": "http://h/{channel}"}}"#)?.key == "publish")
    }

    @Test(arguments: ["0", "10001", "1.5", "\"16\"", "-1"])
    func aQueueOutOfRangeIsRefused(value: String) {
        #expect(problem(file: #"{"limits": {"publishQueue": \#(value)}}"#)?.key == "limits.publishQueue")
    }

    @Test func theURLOfAChannel() {
        let configuration = PublisherConfiguration(urlTemplate: "http://127.0.0.1:8090/pub/{channel}?id=1")
        #expect(configuration.url(for: "ci.builds-2") == "http://127.0.0.1:8090/pub/ci.builds-2?id=1")
        #expect(PublisherConfiguration.problem(with: "http://127.0.0.1:8090/pub/{channel}") == nil)
        #expect(PublisherConfiguration.problem(with: "HTTPS://h/{channel}") == nil)
    }
}

extension String {
    /// The template as a JSON string's content (its quotes escaped).
    fileprivate func replacingQuotes() -> String {
        var result = ""
        for character in self { result += character == "\"" ? "\\\"" : String(character) }
        return result
    }
}
