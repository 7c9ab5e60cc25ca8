import Platform
import ServiceTestSupport
import Synchronization
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

// Helpers of the durability tests: temporary data directories, files, and overlayd processes on
// a data directory.

extension TemporaryDirectory {
    /// The store's file in this directory.
    var database: String { path + "/overlayd.sqlite" }
}

enum Files {
    static func write(_ path: String, _ bytes: [UInt8]) throws {
        let descriptor = open(path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0o644)
        guard descriptor >= 0 else { throw TestSupportError("open \(path) failed: errno \(errno)") }
        defer { close(descriptor) }
        let written = bytes.withUnsafeBytes { Glibc.write(descriptor, $0.baseAddress, $0.count) }
        guard written == bytes.count else { throw TestSupportError("write \(path) failed") }
    }

    static func read(_ path: String) -> [UInt8]? {
        let descriptor = open(path, O_RDONLY | O_CLOEXEC)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { Glibc.read(descriptor, $0.baseAddress, $0.count) }
            if count <= 0 { return bytes }
            bytes += buffer[..<count]
        }
    }

    static func size(_ path: String) -> Int? {
        var status = stat()
        return stat(path, &status) == 0 ? Int(status.st_size) : nil
    }
}

/// A JSON configuration file for overlayd processes, removed when released.
final class ConfigurationFile: Sendable {
    let directory: TemporaryDirectory
    var path: String { directory.path + "/overlayd.json" }

    init(_ json: String) throws {
        directory = try TemporaryDirectory()
        try Files.write(path, Array(json.utf8))
    }
}

/// An id and the text it was accepted with.
struct Accepted: Hashable, Sendable {
    var id: Int
    var text: String
}

/// The ids a burst of POSTs had answered 202, shared by its threads.
final class AcceptedLog: Sendable {
    private let entries = Lock([Accepted]())
    private let stopped = Atomic<Bool>(false)

    var all: [Accepted] { entries.withLock { $0 } }
    var count: Int { entries.withLock { $0.count } }
    var isStopped: Bool { stopped.load(ordering: .acquiring) }

    func add(_ accepted: Accepted) { entries.withLock { $0.append(accepted) } }
    func stop() { stopped.store(true, ordering: .releasing) }
}

extension ChildProcess {
    /// overlayd on `directory` (manual clock, any port, no write rate limit, room for every message
    /// of a burst), with its port once it listens.
    static func daemon(
        on directory: String, configuration: ConfigurationFile, arguments: [String] = [],
        environment: [String: String] = [:]
    ) throws -> (ChildProcess, Int) {
        let child = try ChildProcess.overlayd(
            [
                "--port", "0", "--clock", "manual", "--data-dir", directory, "--config", configuration.path,
                "--max-queue", "1000000",
            ] + arguments, environment: environment)
        guard let port = child.listeningPort() else {
            throw TestSupportError("overlayd did not start: \(child.errorText)")
        }
        return (child, port)
    }
}

/// A configuration for burst tests: no write rate limit, no access log.
func burstConfiguration() throws -> ConfigurationFile {
    try ConfigurationFile(#"{"accessLog": false, "limits": {"writesPerSecond": 0}}"#)
}

/// POSTs from `threads` threads as fast as they can until `log` is stopped or the server goes
/// away, recording every message answered 202 with the text it was sent with. Runs `meanwhile`
/// on one more thread (it decides when the burst ends, and stops `log`), and returns when all end.
func burst(
    port: Int, threads: Int, round: Int, log: AcceptedLog, meanwhile: @escaping @Sendable () -> Void
) {
    onThreads(threads + 1) { index in
        guard index < threads else {
            meanwhile()
            log.stop()
            return
        }
        var sequence = 0
        while !log.isStopped {
            sequence += 1
            let text = "round \(round) thread \(index) message \(sequence)"
            guard
                let response = try? RawClient.request(
                    "POST", "/messages", port: port, headers: [("Content-Type", "text/plain")], body: text)
            else {
                // The server is gone: wait for the burst to end rather than spinning on connect.
                usleep(1_000)
                continue
            }
            if response.status == 202, let id = response.json["id"]?.int {
                log.add(Accepted(id: id, text: response.json["text"]?.string ?? ""))
            }
        }
    }
}

/// Every message of `accepted` as `GET /messages/{id}` sees it on the server at `port`, fetched
/// from a few threads: the ones missing or different.
func missing(_ accepted: [Accepted], port: Int) -> [String] {
    let problems = Lock([String]())
    let threads = 4
    onThreads(threads) { index in
        for (offset, message) in accepted.enumerated() where offset % threads == index {
            let response = try? RawClient.request("GET", "/messages/\(message.id)", port: port)
            if response?.status != 200 || response?.json["text"]?.string != message.text {
                problems.withLock {
                    $0.append("\(message.id) \(message.text): \(response?.status ?? 0) \(response?.text ?? "")")
                }
            }
        }
    }
    return problems.withLock { $0 }
}

/// Starts overlayd again on `directory` and expects every message in `accepted` there, with the
/// text it was answered with; then kills that process.
func expectNoneLostAfterRestart(
    _ accepted: [Accepted], directory: String, configuration: ConfigurationFile,
    sourceLocation: SourceLocation = #_sourceLocation
) throws {
    let (restarted, port) = try ChildProcess.daemon(on: directory, configuration: configuration)
    let lost = missing(accepted, port: port)
    #expect(
        lost.isEmpty, "\(lost.count) of \(accepted.count) lost, first \(lost.prefix(3))", sourceLocation: sourceLocation
    )
    kill(restarted.pid, SIGKILL)
}
