import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// promtool, from Debian's `prometheus` package: Prometheus's own parser and linter of the text
/// format, run on what `GET /metrics` answers.
enum Promtool {
    static let path = ChildProcess.find("promtool")

    /// CI sets OVERLAYD_REQUIRE_PROMTOOL=1: there a missing promtool fails instead of skipping.
    static var isRequired: Bool { getenv("OVERLAYD_REQUIRE_PROMTOOL").map { String(cString: $0) } == "1" }

    /// `promtool check metrics` on `text`: its exit status (0: parsed and linted clean) and what it said.
    static func check(_ text: String) throws -> (status: Int32?, said: String) {
        let promtool = try #require(path, "OVERLAYD_REQUIRE_PROMTOOL=1 and no promtool on PATH")
        let directory = try TemporaryDirectory()
        let check = try ChildProcess(promtool, ["check", "metrics"], input: try directory.write("metrics.txt", text))
        let status = check.exitStatus()
        return (status, check.outputText + check.errorText)
    }
}
