import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// `overlayd <arguments>` run to its end, with what it wrote and its exit status.
struct CommandRun {
    var status: Int32
    var output: String
    var errors: String

    /// Runs the built executable (or `shell`) with `arguments`, `environment` (PATH only
    /// besides) and `input` on standard input; kills it after `timeout` seconds.
    init(
        _ arguments: [String], shell: String? = nil, environment: [String: String] = [:], input: String = "",
        timeout: Double = 20
    ) throws {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: try shell ?? ServerProcess.binary())
        process.arguments = arguments
        process.environment = ["PATH": "/usr/bin:/bin"].merging(environment) { $1 }
        let stdin = Pipe()
        let stdout = Pipe()
        let stderr = Pipe()
        process.standardInput = stdin
        process.standardOutput = stdout
        process.standardError = stderr
        let outLog = OutputLog()
        let errLog = OutputLog()
        // Each reader signals when it has read to the end: only then is the output whole.
        let drained = DispatchGroup()
        for (pipe, log) in [(stdout, outLog), (stderr, errLog)] {
            let handle = pipe.fileHandleForReading
            drained.enter()
            Thread.detachNewThread {
                while true {
                    let data = handle.availableData
                    if data.isEmpty { break }
                    log.append(data)
                }
                drained.leave()
            }
        }
        try process.run()
        stdin.fileHandleForWriting.write(Data(input.utf8))
        try stdin.fileHandleForWriting.close()
        let deadline = Date().addingTimeInterval(timeout)
        while process.isRunning, Date() < deadline { usleep(5_000) }
        if process.isRunning { kill(process.processIdentifier, SIGKILL) }
        process.waitUntilExit()
        _ = drained.wait(timeout: .now() + 5)
        status = process.terminationStatus
        output = outLog.text
        errors = errLog.text
    }
}
