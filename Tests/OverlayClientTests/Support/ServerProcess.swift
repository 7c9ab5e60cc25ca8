import Foundation
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// The built `overlayd` executable as a child process, on a free port (or on the port a previous
/// one had, to restart it there): the client is tested against the real server, not its modules.
final class ServerProcess: Sendable {
    let process: ChildProcess
    let port: Int

    var pid: pid_t { process.pid }
    var url: URL { URL(string: "http://127.0.0.1:\(port)")! }
    /// What it wrote on stderr so far.
    var errorText: String { process.errorText }

    /// `overlayd --port 0 …` (or `--port port`), waiting for its start-up line.
    init(_ arguments: [String], port: Int = 0, environment: [String: String] = [:], subcommand: [String] = []) throws {
        process = try ChildProcess(
            try OverlaydExecutable.path(), subcommand + ["--port", String(port), "--access-log=false"] + arguments,
            environment: environment)
        guard let found = process.listeningPort() else {
            throw TestSupportError("overlayd did not start: \(process.errorText)")
        }
        self.port = found
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
        process.kill(signal)
        _ = try? await offPool { [process] in process.exitStatus() }
    }
}

/// Plain HTTP for what the client under test must not be used to check: metrics, raw answers.
enum Raw {
    /// One request on a connection of its own (closed after the answer, so as to leave no
    /// connection that a test would count), off the shared pool.
    static func get(_ url: URL) async throws -> (status: Int, body: String) {
        let path = url.path.isEmpty ? "/" : url.path + (url.query.map { "?" + $0 } ?? "")
        let port = url.port ?? 80
        let reply = try await offPool { try RawClient.request("GET", path, port: port) }
        return (reply.status, reply.text)
    }

    /// `overlayd_event_streams` plus `overlayd_long_poll_waiters` of every channel.
    static func openReaders(_ server: ServerProcess) async throws -> Int {
        let metrics = MetricSamples(try await get(server.url.appendingPathComponent("metrics")).body)
        return Int(metrics.total("overlayd_event_streams", "overlayd_long_poll_waiters"))
    }

    /// TCP connections established with `port` on this machine, seen from the client's side.
    static func connections(toPort port: Int) -> Int {
        TCPTable.connections(toPort: port)
    }
}
