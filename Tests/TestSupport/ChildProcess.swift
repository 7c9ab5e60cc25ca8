import Platform

#if canImport(Glibc)
    import Glibc
#endif

/// A program the tests start (overlayd, tmux, nginx, redis-server), with `posix_spawn`: its
/// standard streams are files it opens itself, every other descriptor of the test process is
/// closed in it, it starts with default signal handling and only the environment given, and it
/// is reaped with `waitpid`. Killed when released, and at the latest when the test process exits.
///
/// Not Foundation's `Process`: it learns that a child ended when a pipe it hands the child
/// closes, and a child spawned meanwhile by another test would inherit and keep that pipe.
public final class ChildProcess: Sendable {
    public let pid: pid_t
    /// Where standard output and error go unless given.
    public let directory: TemporaryDirectory
    public let outputPath: String
    public let errorPath: String
    /// The exit status once reaped (negative: the signal that ended it).
    private let status = Lock<Int32?>(nil)

    /// Starts `path` with `arguments` and `environment` (PATH is /usr/bin:/bin unless given);
    /// standard input is read from `input`, output and error are appended to `output` and
    /// `errors` (the same path for both is fine), files in `directory` unless given.
    public init(
        _ path: String, _ arguments: [String], environment: [String: String] = [:], input: String = "/dev/null",
        output: String? = nil, errors: String? = nil
    ) throws {
        directory = try TemporaryDirectory()
        outputPath = output ?? directory.path + "/stdout"
        errorPath = errors ?? directory.path + "/stderr"
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, input, O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        if errorPath == outputPath {
            posix_spawn_file_actions_adddup2(&actions, 1, 2)
        } else {
            posix_spawn_file_actions_addopen(&actions, 2, errorPath, O_WRONLY | O_CREAT | O_APPEND, 0o644)
        }
        if !GNU.addCloseFrom(&actions, 3) {
            // Without closefrom: each descriptor open now. One opened after this look would
            // leak, which is why every descriptor the support opens is close-on-exec as well.
            for descriptor in ChildProcess.openDescriptors() where descriptor > 2 {
                posix_spawn_file_actions_addclose(&actions, descriptor)
            }
        }
        var attributes = posix_spawnattr_t()
        posix_spawnattr_init(&attributes)
        defer { posix_spawnattr_destroy(&attributes) }
        // The test process may block or ignore signals (overlayd's main blocks some); the child
        // starts with none blocked and the default action for each.
        var defaults = sigset_t()
        sigemptyset(&defaults)
        for signal in [SIGTERM, SIGINT, SIGHUP, SIGQUIT, SIGPIPE, SIGWINCH, SIGCHLD, SIGUSR1, SIGUSR2] {
            sigaddset(&defaults, signal)
        }
        posix_spawnattr_setsigdefault(&attributes, &defaults)
        var empty = sigset_t()
        sigemptyset(&empty)
        posix_spawnattr_setsigmask(&attributes, &empty)
        posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))
        let variables = ["PATH": "/usr/bin:/bin"].merging(environment) { $1 }.map { "\($0.key)=\($0.value)" }
        let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
        let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup($0) } + [nil]
        defer {
            argv.forEach { free($0) }
            envp.forEach { free($0) }
        }
        var pid: pid_t = 0
        let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
        guard result == 0 else { throw TestSupportError("posix_spawn \(path) failed: \(result)") }
        self.pid = pid
        ChildProcess.killAtExit(pid)
    }

    deinit {
        if status.withLock({ $0 }) == nil {
            Glibc.kill(pid, SIGKILL)
            var raw: Int32 = 0
            while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        }
        ChildProcess.forget(pid)
    }

    /// What the child has written to its standard output and error so far.
    public var outputText: String { TemporaryDirectory.read(outputPath) }
    public var errorText: String { TemporaryDirectory.read(errorPath) }

    /// The exit status (negative: the signal that ended it), waiting up to `seconds` for the
    /// child to end; nil if it still runs then.
    public func exitStatus(within seconds: Double = patience) -> Int32? {
        let deadline = Deadline(after: seconds)
        while true {
            if let status = reap() { return status }
            if deadline.hasPassed { return nil }
            usleep(2_000)
        }
    }

    /// Whether the child still runs.
    public var isRunning: Bool { reap() == nil }

    /// Sends `signal`; false if the child has already been reaped.
    @discardableResult
    public func kill(_ signal: Int32) -> Bool {
        status.withLock { $0 == nil } && Glibc.kill(pid, signal) == 0
    }

    /// Sends `signal`, waits for the exit (SIGKILL after `seconds`) and answers the status.
    @discardableResult
    public func stop(signal: Int32 = SIGTERM, within seconds: Double = patience) -> Int32 {
        kill(signal)
        if let status = exitStatus(within: seconds) { return status }
        kill(SIGKILL)
        return exitStatus(within: .infinity) ?? -SIGKILL
    }

    /// The full path of the program `name`: on PATH, or in the sbin directories a non-root PATH
    /// may lack.
    public static func find(_ name: String) -> String? {
        let path = getenv("PATH").map { String(cString: $0) } ?? "/usr/bin:/bin"
        let directories = path.split(separator: ":").map(String.init) + ["/usr/sbin", "/sbin", "/usr/local/sbin"]
        return directories.map { "\($0)/\(name)" }.first { access($0, X_OK) == 0 }
    }

    /// Reaps the child if it has ended; its status once it has.
    private func reap() -> Int32? {
        status.withLock { status in
            if let status { return status }
            var raw: Int32 = 0
            var waited: pid_t
            repeat { waited = waitpid(pid, &raw, WNOHANG) } while waited < 0 && errno == EINTR
            guard waited == pid else { return nil }
            // WIFEXITED / WEXITSTATUS and WTERMSIG, which Swift does not import (they are macros).
            status = (raw & 0x7F) == 0 ? (raw >> 8) & 0xFF : -(raw & 0x7F)
            return status
        }
    }

    /// The descriptors open in this process now.
    private static func openDescriptors() -> [Int32] {
        guard let directory = opendir("/proc/self/fd") else { return [] }
        defer { closedir(directory) }
        var descriptors: [Int32] = []
        while let entry = readdir(directory) {
            let name = withUnsafeBytes(of: entry.pointee.d_name) {
                String(decoding: $0.prefix { $0 != 0 }, as: UTF8.self)
            }
            if let descriptor = Int32(name) { descriptors.append(descriptor) }
        }
        return descriptors
    }

    /// Kills `pid` (a process this one did not start itself, such as tmux's server) when the test
    /// process exits, unless `forget` comes first.
    public static func killAtExit(_ pid: pid_t) {
        running.withLock { _ = $0.insert(pid) }
        _ = killingAtExit
    }

    public static func forget(_ pid: pid_t) {
        running.withLock { _ = $0.remove(pid) }
    }

    /// Children not yet released: a test that ends without releasing its child, or a run that
    /// stops early, leaves none behind.
    private static let running = Lock(Set<pid_t>())
    private static let killingAtExit: Void = {
        atexit {
            for pid in ChildProcess.running.withLock({ $0 }) { Glibc.kill(pid, SIGKILL) }
        }
    }()
}
