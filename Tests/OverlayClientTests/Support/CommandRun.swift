import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// `overlayd <arguments>` run to its end, with what it wrote and its exit status.
struct CommandRun {
    var status: Int32
    var output: String
    var errors: String

    /// `init`, off the shared pool.
    static func run(
        _ arguments: [String], shell: String? = nil, environment: [String: String] = [:], input: String = ""
    ) async throws -> CommandRun {
        try await offPool { try CommandRun(arguments, shell: shell, environment: environment, input: input) }
    }

    /// Runs the built executable (or `shell`) with `arguments`, `environment` (PATH only
    /// besides) and `input` on standard input; kills it after `timeout` seconds.
    init(
        _ arguments: [String], shell: String? = nil, environment: [String: String] = [:], input: String = "",
        timeout: Double = 20
    ) throws {
        let directory = try TemporaryDirectory()
        let stdin = try directory.write("stdin", input)
        let pid = try Spawn.start(
            try shell ?? OverlaydExecutable.path(), arguments,
            environment: ["PATH": "/usr/bin:/bin"].merging(environment) { $1 }, input: stdin,
            output: directory.path + "/stdout", errors: directory.path + "/stderr")
        Children.started(pid)
        defer { Children.ended(pid) }
        if let status = Spawn.exitStatus(pid, within: timeout) {
            self.status = status
        } else {
            Spawn.end(pid)
            self.status = -SIGKILL
        }
        output = directory.read("stdout")
        errors = directory.read("stderr")
    }
}
