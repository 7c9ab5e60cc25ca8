import TestSupport

extension ChildProcess {
    /// The built overlayd with `arguments`, or `executable` (a shell that sets limits and runs
    /// overlayd, say) with them.
    static func overlayd(
        _ arguments: [String], environment: [String: String] = [:], executable: String? = nil
    ) throws -> ChildProcess {
        try ChildProcess(try executable ?? OverlaydExecutable.path(), arguments, environment: environment)
    }
}
