import ServiceTestSupport
import Synchronization
import TestSupport
import Testing

@testable import MicroHTTP
@testable import OverlayService
@testable import OverlayStore

#if canImport(Glibc)
    import Glibc
#endif

/// A data directory overlayd cannot use stops start-up with exit status 2 and a message naming
/// the file or directory: overlayd never starts on empty state instead.
@Suite("Unusable data directory")
struct DataDirectoryTests {
    /// Starts overlayd on `directory` and expects exit 2, `named` in the message, and no listening.
    static func expectRefusal(
        _ directory: String, named: String, mentioning reason: String? = nil,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        let child = try ChildProcess.overlayd(["--port", "0", "--data-dir", directory, "--access-log=false"])
        #expect(child.exitStatus() == 2, "stderr: \(child.errorText)", sourceLocation: sourceLocation)
        #expect(child.errorText.contains("data error"), "stderr: \(child.errorText)", sourceLocation: sourceLocation)
        #expect(child.errorText.contains(named), "stderr: \(child.errorText)", sourceLocation: sourceLocation)
        if let reason {
            #expect(child.errorText.contains(reason), "stderr: \(child.errorText)", sourceLocation: sourceLocation)
        }
        #expect(!child.errorText.contains("listening"), sourceLocation: sourceLocation)
    }

    /// A file that is not SQLite at all: refused, and left as it was.
    @Test func garbageDatabase() throws {
        let directory = try TemporaryDirectory()
        var garbage = Array("this is not an overlayd database\n".utf8)
        var generator = SystemRandomNumberGenerator()
        for _ in 0..<8192 { garbage.append(UInt8.random(in: 0...255, using: &generator)) }
        try Files.write(directory.database, garbage)
        try DataDirectoryTests.expectRefusal(directory.path, named: directory.database, mentioning: "not a database")
        #expect(Files.read(directory.database) == garbage)
    }

    /// A real database cut off in the middle (a torn copy, a full disk): refused.
    @Test func truncatedDatabase() throws {
        let directory = try TemporaryDirectory()
        let configuration = try burstConfiguration()
        let (child, port) = try ChildProcess.daemon(on: directory.path, configuration: configuration)
        let long = String(repeating: "x", count: 250)
        for index in 0..<300 {
            let posted = try RawClient.request("POST", "/messages", port: port, body: "\(index) \(long)")
            #expect(posted.status == 202)
        }
        kill(child.pid, SIGTERM)
        #expect(child.exitStatus() == 0)
        // Everything into the database file itself (as a checkpoint, or a copy of a backup, has it).
        do {
            let database = try Database(path: directory.database)
            try database.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        }
        let bytes = try #require(Files.read(directory.database))
        #expect(bytes.count > 32 * 1024)
        try Files.write(directory.database, Array(bytes.prefix(bytes.count / 2)))
        try DataDirectoryTests.expectRefusal(directory.path, named: directory.database)
        #expect(Files.size(directory.database) == bytes.count / 2)
    }

    /// A data directory that cannot be created or entered. As root chmod does not keep anyone
    /// out, so a path under a regular file stands in for it there.
    @Test func unusableDirectory() throws {
        let directory = try TemporaryDirectory()
        let file = directory.path + "/a-file"
        try Files.write(file, Array("not a directory".utf8))
        try DataDirectoryTests.expectRefusal(file + "/data", named: file + "/data")
        try DataDirectoryTests.expectRefusal(file, named: file, mentioning: "not a directory")
        if getuid() != 0 {
            let locked = directory.path + "/locked"
            #expect(mkdir(locked, 0o755) == 0)
            #expect(chmod(locked, 0) == 0)
            try DataDirectoryTests.expectRefusal(locked, named: locked)
            try DataDirectoryTests.expectRefusal(locked + "/data", named: locked + "/data")
        }
    }

    /// A database (or its write-ahead log) that cannot be written: SQLite would open it read-only
    /// and every commit would fail, so start-up stops. Permissions do not bind root, so as root
    /// overlayd runs as `nobody` (setpriv) on a directory that `nobody` owns.
    @Test(
        .enabled(
            if: Capabilities.permissionsBindOverlayd,
            "permissions do not bind root, and overlayd cannot be run as nobody (setpriv) here"),
        arguments: ["overlayd.sqlite", "overlayd.sqlite-wal"])
    func readOnlyDatabase(file: String) throws {
        let directory = try TemporaryDirectory()
        let configuration = try burstConfiguration()
        let (child, port) = try ChildProcess.daemon(on: directory.path, configuration: configuration)
        #expect(try RawClient.request("POST", "/messages", port: port, body: "kept").status == 202)
        kill(child.pid, SIGKILL)
        _ = child.exitStatus()
        #expect(chmod(directory.path + "/" + file, 0o444) == 0)
        var launcher: [String] = []
        if getuid() == 0 {
            let nobody: uid_t = 65534
            chmod(directory.path, 0o755)
            for name in ["", "/overlayd.sqlite", "/overlayd.sqlite-wal", "/overlayd.lock"] {
                chown(directory.path + name, nobody, gid_t(nobody))
            }
            launcher = Capabilities.nobody + [try OverlaydExecutable.path()]
        }
        let refused = try ChildProcess.overlayd(
            launcher + ["--port", "0", "--data-dir", directory.path, "--access-log=false"],
            executable: launcher.isEmpty ? nil : "/usr/bin/setpriv")
        #expect(refused.exitStatus() == 2, "stderr: \(refused.errorText)")
        #expect(refused.errorText.contains(directory.database), "stderr: \(refused.errorText)")
        #expect(refused.errorText.contains("cannot be written"), "stderr: \(refused.errorText)")
        #expect(!refused.errorText.contains("listening"))
    }

    /// A second overlayd on a data directory in use exits 2; the first goes on serving.
    @Test func secondProcessOnTheSameDirectory() throws {
        let directory = try TemporaryDirectory()
        let configuration = try burstConfiguration()
        let (first, port) = try ChildProcess.daemon(on: directory.path, configuration: configuration)
        #expect(try RawClient.request("POST", "/messages", port: port, body: "first").status == 202)
        try DataDirectoryTests.expectRefusal(directory.path, named: directory.path, mentioning: "in use")
        #expect(try RawClient.request("POST", "/messages", port: port, body: "still first").status == 202)
        #expect(try RawClient.request("GET", "/messages/2", port: port).json["text"]?.string == "still first")
        kill(first.pid, SIGTERM)
        #expect(first.exitStatus() == 0)
    }

    /// A store holds its directory until `close()`, not until its last reference goes: a store
    /// reopened in the same process right after (a test's restart) found it still locked when the
    /// closed one's last release came late.
    @Test func closeFreesTheDirectory() throws {
        let directory = try TemporaryDirectory()
        let first = try OverlayStore(directory: directory.path)
        first.start()
        #expect(throws: StoreError.self) { _ = try OverlayStore(directory: directory.path) }
        first.close()
        let second = try OverlayStore(directory: directory.path)
        second.start()
        #expect(throws: StoreError.self) { _ = try OverlayStore(directory: directory.path) }
        second.close()
        withExtendedLifetime(first) {}
    }

    /// A database written by a newer overlayd (a higher schema_version) is not touched.
    @Test func newerSchema() throws {
        let directory = try TemporaryDirectory()
        do {
            let store = try OverlayStore(directory: directory.path)
            store.close()
        }
        do {
            let database = try Database(path: directory.database)
            try database.execute("UPDATE schema_version SET version = \(Schema.latest + 1)")
        }
        try DataDirectoryTests.expectRefusal(
            directory.path, named: directory.database, mentioning: "schema version \(Schema.latest + 1)")
        #expect(try StoredState.schemaVersion(in: directory) == Schema.latest + 1)
    }
}
