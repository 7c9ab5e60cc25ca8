import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// A tmux server of its own (its own socket, no configuration file) for driving `overlayd watch`
/// in a real terminal: start a command in a detached session, type keys, and read the screen back.
final class Tmux: @unchecked Sendable {
    /// tmux on PATH, if it is installed.
    static let executable = ChildProcess.find("tmux")

    /// tmux's own environment, whatever the test runner's is: without a TERM it leaves a pane's
    /// alternate screen without restoring the screen under it, and without a UTF-8 locale it
    /// shows the block characters as underscores.
    static let environment = ["PATH": "/usr/bin:/bin", "TERM": "xterm-256color", "LANG": "C.UTF-8"]

    let directory: TemporaryDirectory
    private var socket: String { directory.path + "/tmux.sock" }
    private let lock = NSLock()
    private var captured = ""
    private var server: pid_t?

    /// The screen as the last `screen()` read it, for a failure's message.
    var lastScreen: String { lock.withLock { captured } }

    /// A session running `command` (through `sh -c`) in a `columns` × `rows` window.
    init(_ command: String, columns: Int, rows: Int) throws {
        directory = try TemporaryDirectory()
        try run(["new-session", "-d", "-s", "watch", "-x", String(columns), "-y", String(rows), command])
        server = pid_t(try run(["display-message", "-p", "#{pid}"]).trimmingCharacters(in: .whitespacesAndNewlines))
        // tmux's server is not this process's child: it is killed at exit all the same.
        if let server { ChildProcess.killAtExit(server) }
    }

    /// `init`, off the shared pool.
    static func start(_ command: String, columns: Int, rows: Int) async throws -> Tmux {
        try await offPool { try Tmux(command, columns: columns, rows: rows) }
    }

    /// `run`, off the shared pool.
    @discardableResult
    func tmux(_ arguments: [String]) async throws -> String {
        try await offPool { [self] in try run(arguments) }
    }

    deinit {
        _ = try? run(["kill-server"])
        if let server { ChildProcess.forget(server) }
    }

    /// Runs `tmux -S socket -f /dev/null arguments…` and answers what it printed.
    @discardableResult
    func run(_ arguments: [String]) throws -> String {
        guard let executable = Self.executable else { throw TestSupportError("tmux is not installed") }
        let client = try ChildProcess(
            executable, ["-S", socket, "-f", "/dev/null"] + arguments, environment: Self.environment)
        if client.exitStatus() == nil { client.stop(signal: SIGKILL) }
        return client.outputText
    }

    /// The screen as text (`capture-pane -p`), or with its colour escapes (`-e`).
    func screen(escapes: Bool = false) async -> String {
        let screen = (try? await tmux(["capture-pane", "-p"] + (escapes ? ["-e"] : []) + ["-t", "watch"])) ?? ""
        lock.withLock { captured = screen }
        return screen
    }

    /// A format of the pane (`#{alternate_on}`, `#{cursor_flag}`).
    func pane(_ format: String) async -> String {
        ((try? await tmux(["display-message", "-p", "-t", "watch", format])) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func keys(_ keys: String...) async throws {
        try await tmux(["send-keys", "-t", "watch"] + keys)
    }

    func resize(columns: Int, rows: Int) async throws {
        try await tmux(["resize-window", "-t", "watch", "-x", String(columns), "-y", String(rows)])
    }

    /// Appends everything the program writes from now on to `file`.
    func record(to file: String) async throws {
        try await tmux(["pipe-pane", "-o", "-t", "watch", "cat >> '\(file)'"])
    }
}
