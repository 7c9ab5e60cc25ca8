import Foundation
import TestSupport

#if canImport(Glibc)
    import Glibc
#endif

/// Children started with `posix_spawn` and reaped with `waitpid`, their standard streams files
/// that the child opens itself.
///
/// Not Foundation's `Process`: it learns that a child ended when a descriptor it hands the child
/// closes, and any other child spawned meanwhile (a tmux server that outlives its test) inherits
/// and keeps that descriptor; a pipe to the child's output has the same trouble. `waitpid` and
/// files have none. Spawns are serialised, and a child that stays (tmux) closes every other
/// descriptor of this process, so no child keeps what belongs to another.
enum Spawn {
    private static let lock = NSLock()

    /// Starts `path` with `arguments`, `environment` alone, default signal handling, and its
    /// standard input, output and error opened from these paths.
    static func start(
        _ path: String, _ arguments: [String], environment: [String: String], input: String = "/dev/null",
        output: String = "/dev/null", errors: String = "/dev/null", closingOthers: Bool = false
    ) throws -> pid_t {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, output, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_addopen(&actions, 2, errors, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGWINCH] { sigaddset(&defaults, signal) }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = environment.map { strdup("\($0.key)=\($0.value)") } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        lock.lock()
        defer { lock.unlock() }
        if closingOthers {
            // Closing one that has closed meanwhile is no error to posix_spawn.
            let open = (try? FileManager.default.contentsOfDirectory(atPath: "/proc/self/fd")) ?? []
            for descriptor in open.compactMap({ Int32($0) }) where descriptor > 2 {
                posix_spawn_file_actions_addclose(&actions, descriptor)
            }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard result == 0 else { throw TestFailure(description: "posix_spawn \(path) failed: \(result)") }
        return pid
    }

    /// The exit status of `pid` (negative: the signal that ended it), waiting up to `seconds`;
    /// nil if it still runs then.
    static func exitStatus(_ pid: pid_t, within seconds: Double) -> Int32? {
        let deadline = Date().addingTimeInterval(seconds)
        while true {
            var raw: Int32 = 0
            let waited = waitpid(pid, &raw, WNOHANG)
            if waited == pid { return (raw & 0x7F) == 0 ? (raw >> 8) & 0xFF : -(raw & 0x7F) }
            if waited < 0, errno != EINTR { return nil }
            if Date() >= deadline { return nil }
            usleep(2_000)
        }
    }

    /// Kills `pid` if it still runs, and reaps it.
    static func end(_ pid: pid_t) {
        kill(pid, SIGKILL)
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0, errno == EINTR {}
    }
}

extension TemporaryDirectory {
    /// The text of a file in this directory ("" if there is none yet).
    func read(_ name: String) -> String {
        FileManager.default.contents(atPath: path + "/" + name).map { String(decoding: $0, as: UTF8.self) } ?? ""
    }
}
