import Foundation

#if canImport(Glibc)
    import Glibc
#endif

/// A tmux server of its own (its own socket, no configuration file) for driving `overlayd watch`
/// in a real terminal: start a command in a detached session, type keys, and read the screen back.
final class Tmux: @unchecked Sendable {
    /// tmux on PATH, if it is installed.
    static let executable: String? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return (path.split(separator: ":").map { "\($0)/tmux" } + ["/usr/bin/tmux"])
            .first { access($0, X_OK) == 0 }
    }()

    let directory: TemporaryDirectory
    private var socket: String { directory.path + "/tmux.sock" }

    /// A session running `command` (through `sh -c`) in a `columns` × `rows` window.
    init(_ command: String, columns: Int, rows: Int) throws {
        directory = try TemporaryDirectory()
        // The server this starts keeps the client's stdout: a pipe there would never reach its end.
        try run(
            ["new-session", "-d", "-s", "watch", "-x", String(columns), "-y", String(rows), command], output: false)
        // The pane stays, with what it showed last, once its command has ended.
        try run(["set-option", "-t", "watch", "remain-on-exit", "on"])
        if let pid = pid_t(
            try run(["display-message", "-p", "#{pid}"]).trimmingCharacters(in: .whitespacesAndNewlines))
        {
            Children.started(pid)
        }
    }

    deinit {
        _ = try? run(["kill-server"])
    }

    /// Runs `tmux -S socket -f /dev/null arguments…` and answers what it printed.
    ///
    /// Spawned by hand, not with Foundation's `Process`: that one learns of a child's end when a
    /// descriptor it hands the child closes, and the tmux server a first command starts keeps it.
    @discardableResult
    func run(_ arguments: [String], output captured: Bool = true) throws -> String {
        guard let executable = Self.executable else { throw TestFailure(description: "tmux is not installed") }
        var pipes: [Int32] = [-1, -1]
        guard pipe(&pipes) == 0 else { throw TestFailure(description: "pipe failed") }
        defer { close(pipes[0]) }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addclose(&actions, pipes[0])
        if captured {
            posix_spawn_file_actions_adddup2(&actions, pipes[1], 1)
        } else {
            posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
        }
        posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
        posix_spawn_file_actions_addclose(&actions, pipes[1])
        // Nothing else of this process goes to tmux: the server it starts would hold it open (the
        // descriptors by which Foundation sees other children end, say) for as long as it runs.
        // Closing one that has closed meanwhile is no error to posix_spawn.
        let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
        for descriptor in open.compactMap({ Int32($0) }) where descriptor > 2 && !pipes.contains(descriptor) {
            posix_spawn_file_actions_addclose(&actions, descriptor)
        }
        let argv: [UnsafeMutablePointer<CChar>?] =
            ([executable, "-S", socket, "-f", "/dev/null"] + arguments).map { strdup($0) } + [nil]
        defer { argv.forEach { free($0) } }
        var pid: pid_t = 0
        let spawned = posix_spawn(&pid, executable, &actions, nil, argv, environ)
        close(pipes[1])
        guard spawned == 0 else { throw TestFailure(description: "posix_spawn tmux failed: \(spawned)") }
        var output: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while captured {
            let count = read(pipes[0], &buffer, buffer.count)
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            output += buffer[..<count]
        }
        var status: Int32 = 0
        while waitpid(pid, &status, 0) < 0, errno == EINTR {}
        return String(decoding: output, as: UTF8.self)
    }

    /// The screen as text (`capture-pane -p`), or with its colour escapes (`-e`).
    func screen(escapes: Bool = false) -> String {
        (try? run(["capture-pane", "-p"] + (escapes ? ["-e"] : []) + ["-t", "watch"])) ?? ""
    }

    /// A format of the pane (`#{alternate_on}`, `#{cursor_flag}`).
    func pane(_ format: String) -> String {
        ((try? run(["display-message", "-p", "-t", "watch", format])) ?? "")
            .trimmingCharacters(in: .whitespacesAndNewlines)
    }

    func keys(_ keys: String...) throws {
        try run(["send-keys", "-t", "watch"] + keys)
    }

    func resize(columns: Int, rows: Int) throws {
        try run(["resize-window", "-t", "watch", "-x", String(columns), "-y", String(rows)])
    }

    /// Appends everything the program writes from now on to `file`.
    func record(to file: String) throws {
        try run(["pipe-pane", "-o", "-t", "watch", "cat >> '\(file)'"])
    }
}
