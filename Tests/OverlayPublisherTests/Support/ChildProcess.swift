#if canImport(Glibc)
    import Glibc
#endif

/// A program the test starts (nginx, redis-server), its output in a log file, stopped when
/// released.
final class ChildProcess: @unchecked Sendable {
    let pid: pid_t
    private var exited = false

    init(_ arguments: [String], log: String) throws {
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, log, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        posix_spawn_file_actions_adddup2(&actions, 1, 2)
        // The test process may block signals (overlayd's main does); the child starts with none.
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        var defaults = sigset_t()
        sigemptyset(&defaults)
        sigaddset(&defaults, SIGPIPE)
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF))
        var argv: [UnsafeMutablePointer<CChar>?] = arguments.map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var child = pid_t()
        let program = executablePath(arguments[0]) ?? arguments[0]
        let result = posix_spawn(&child, program, &actions, &attributes, &argv, environ)
        guard result == 0 else { throw SupportError("cannot start \(arguments[0]): error \(result)") }
        pid = child
    }

    deinit {
        stop(signal: SIGTERM)
    }

    /// Sends `signal` and waits (up to 10 s, then SIGKILL) for the process to exit.
    func stop(signal: Int32 = SIGTERM) {
        guard !exited else { return }
        kill(pid, signal)
        var status: Int32 = 0
        for _ in 0..<1000 {
            if waitpid(pid, &status, WNOHANG) == pid {
                exited = true
                return
            }
            usleep(10_000)
        }
        kill(pid, SIGKILL)
        waitpid(pid, &status, 0)
        exited = true
    }

    var isRunning: Bool {
        guard !exited else { return false }
        var status: Int32 = 0
        if waitpid(pid, &status, WNOHANG) == pid { exited = true }
        return !exited
    }
}

/// The program's path: found on PATH, or in the sbin directories a non-root PATH may lack.
func executablePath(_ name: String) -> String? {
    let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
    let directories = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin", "/usr/local/sbin"]
    return directories.map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
}

func executableExists(_ name: String) -> Bool { executablePath(name) != nil }

/// The file's contents, or "" if it cannot be read.
func readText(_ path: String) -> String {
    guard let file = fopen(path, "r") else { return "" }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var buffer = [UInt8](repeating: 0, count: 4096)
    while true {
        let count = fread(&buffer, 1, buffer.count, file)
        if count <= 0 { break }
        bytes += buffer[0..<count]
    }
    return String(decoding: bytes, as: UTF8.self)
}
