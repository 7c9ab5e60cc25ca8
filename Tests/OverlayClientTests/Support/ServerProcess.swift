import Foundation
import TestSupport
import Testing

#if canImport(FoundationNetworking)
    import FoundationNetworking
#endif
#if canImport(Glibc)
    import Glibc
#endif

struct TestFailure: Error, CustomStringConvertible {
    var description: String
}

/// The built `overlayd` executable as a child process, on a free port (or on the port a previous
/// one had, to restart it there): the client is tested against the real server, not its modules.
final class ServerProcess: @unchecked Sendable {
    let pid: pid_t
    let port: Int
    /// Where its stderr goes.
    private let directory: TemporaryDirectory

    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }
    /// What it wrote on stderr so far.
    var errorText: String { directory.read("stderr") }

    /// `overlayd --port 0 …` (or `--port port`), waiting for its start-up line.
    init(_ arguments: [String], port: Int = 0, environment: [String: String] = [:], subcommand: [String] = []) throws {
        directory = try TemporaryDirectory()
        pid = try Spawn.start(
            try OverlaydExecutable.path(), subcommand + ["--port", String(port), "--access-log=false"] + arguments,
            environment: ["PATH": "/usr/bin:/bin"].merging(environment) { $1 },
            errors: directory.path + "/stderr")
        Children.started(pid)
        let deadline = Date().addingTimeInterval(15)
        var found: Int?
        while found == nil, Date() < deadline, Spawn.exitStatus(pid, within: 0) == nil {
            found = Self.listeningPort(in: directory.read("stderr"))
            if found == nil { usleep(5_000) }
        }
        guard let found else {
            Spawn.end(pid)
            Children.ended(pid)
            throw TestFailure(description: "overlayd did not start: \(directory.read("stderr"))")
        }
        self.port = found
    }

    deinit {
        Spawn.end(pid)
        Children.ended(pid)
    }

    private static func listeningPort(in text: String) -> Int? {
        guard let line = text.split(separator: "\n").first(where: { $0.contains("listening") }),
            let field = line.split(separator: " ").first(where: { $0.hasPrefix("port=") })
        else { return nil }
        return Int(field.dropFirst("port=".count))
    }

    /// `overlayd --port 0 …`, started off the shared pool.
    static func start(
        _ arguments: [String], port: Int = 0, environment: [String: String] = [:], subcommand: [String] = []
    ) async throws -> ServerProcess {
        try await offPool {
            try ServerProcess(arguments, port: port, environment: environment, subcommand: subcommand)
        }
    }

    /// SIGTERM (a clean stop) or SIGKILL (a crash), then waits for the exit.
    func stop(signal: Int32 = SIGTERM) async {
        kill(pid, signal)
        _ = try? await offPool { [pid] in Spawn.exitStatus(pid, within: 10) }
    }
}

/// Every child still running, killed when the test process exits, so that a test that ends
/// without releasing its server (or a run that stops early) leaves no overlayd behind.
enum Children {
    private static let lock = NSLock()
    nonisolated(unsafe) private static var running: Set<pid_t> = []
    private static let registered: Void = {
        atexit {
            Children.lock.lock()
            for pid in Children.running { kill(pid, SIGKILL) }
            Children.lock.unlock()
        }
    }()

    static func started(_ pid: pid_t) {
        _ = registered
        lock.withLock { _ = running.insert(pid) }
    }

    static func ended(_ pid: pid_t) {
        lock.withLock { _ = running.remove(pid) }
    }
}

/// Plain HTTP for what the client under test must not be used to check: metrics, raw answers.
enum Raw {
    static func get(_ url: URL) async throws -> (status: Int, body: String) {
        // Closed after the answer, so as to leave no connection that a test would count.
        var request = URLRequest(url: url)
        request.setValue("close", forHTTPHeaderField: "Connection")
        let (data, response) = try await URLSession.shared.data(for: request)
        return ((response as? HTTPURLResponse)?.statusCode ?? 0, String(decoding: data, as: UTF8.self))
    }

    /// `overlayd_event_streams` plus `overlayd_long_poll_waiters` of every channel.
    static func openReaders(_ server: ServerProcess) async throws -> Int {
        let metrics = try await get(server.url.appendingPathComponent("metrics")).body
        return metrics.split(separator: "\n").reduce(0) { total, line in
            guard line.hasPrefix("overlayd_event_streams{") || line.hasPrefix("overlayd_long_poll_waiters{"),
                let value = line.split(separator: " ").last.flatMap({ Int($0) })
            else { return total }
            return total + value
        }
    }

    /// TCP connections established with `port` on this machine, seen from the client's side
    /// (remote port `port`), from /proc/net/tcp and tcp6.
    static func connections(toPort port: Int) -> Int {
        var count = 0
        for file in ["/proc/net/tcp", "/proc/net/tcp6"] {
            // Read to the end: procfs reports no size, and a single read stops at a page.
            guard let data = FileHandle(forReadingAtPath: file)?.readDataToEndOfFile() else { continue }
            let text = String(decoding: data, as: UTF8.self)
            for line in text.split(separator: "\n").dropFirst() {
                let fields = line.split(separator: " ")
                guard fields.count > 3, fields[3] == "01",
                    let remotePort = fields[2].split(separator: ":").last.flatMap({ Int($0, radix: 16) })
                else { continue }
                if remotePort == port { count += 1 }
            }
        }
        return count
    }
}

/// Polls `condition` every 10 ms until it holds or `seconds` pass; answers whether it held. The
/// limit is generous: the whole test run shares two cores, and a condition that holds returns
/// at once.
func eventually(within seconds: Double = 30, _ condition: () async throws -> Bool) async rethrows -> Bool {
    let deadline = Date().addingTimeInterval(seconds)
    while Date() < deadline {
        if try await condition() { return true }
        try? await Task.sleep(nanoseconds: 10_000_000)
    }
    return try await condition()
}
