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
    /// besides) and `input` on standard input; killed if it has not ended within `timeout`
    /// seconds (a command that hangs).
    init(
        _ arguments: [String], shell: String? = nil, environment: [String: String] = [:], input: String = "",
        timeout: Double = patience
    ) throws {
        let directory = try TemporaryDirectory()
        let stdin = try directory.write("stdin", input)
        let process = try ChildProcess(
            try shell ?? OverlaydExecutable.path(), arguments, environment: environment, input: stdin)
        status = process.exitStatus(within: timeout) ?? process.stop(signal: SIGKILL)
        output = process.outputText
        errors = process.errorText
    }
}
