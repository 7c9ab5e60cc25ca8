import TestSupport
import Testing

@testable import OverlayService

#if canImport(Glibc)
    import Glibc
#endif

/// The `overlayd` executable as a process (MODEL §7): exit codes, messages on stderr, signals.
///
/// These tests need the executable built: the test command is `swift build && swift test` (a test
/// target cannot depend on an executable target's product here). `OVERLAYD_BINARY` overrides where
/// it is looked for.
@Suite("overlayd process")
struct ProcessTests {
    /// A running child with its stdout and stderr on pipes.
    final class Child {
        let pid: pid_t
        private let stdout: Int32
        private let stderr: Int32
        private(set) var output: [UInt8] = []
        private(set) var errors: [UInt8] = []
        private(set) var status: Int32?

        /// Runs overlayd, or `executable` (a shell that sets limits and runs overlayd, say).
        init(_ arguments: [String], environment: [String: String] = [:], executable: String? = nil) throws {
            let path = try executable ?? OverlaydExecutable.path()
            var outPipe: [Int32] = [0, 0]
            var errPipe: [Int32] = [0, 0]
            guard pipe(&outPipe) == 0, pipe(&errPipe) == 0 else { throw TestClientError(description: "pipe failed") }
            // The child gets only the write ends, as its stdout and stderr.
            for fd in outPipe + errPipe { _ = fcntl(fd, F_SETFD, FD_CLOEXEC) }
            var actions = posix_spawn_file_actions_t()
            posix_spawn_file_actions_init(&actions)
            defer { posix_spawn_file_actions_destroy(&actions) }
            posix_spawn_file_actions_adddup2(&actions, outPipe[1], 1)
            posix_spawn_file_actions_adddup2(&actions, errPipe[1], 2)
            // Default dispositions and an empty mask, whatever the test runner has set for itself.
            var attributes = posix_spawnattr_t()
            posix_spawnattr_init(&attributes)
            defer { posix_spawnattr_destroy(&attributes) }
            var defaults = sigset_t()
            sigemptyset(&defaults)
            for signal in [SIGTERM, SIGINT, SIGPIPE] { sigaddset(&defaults, signal) }
            posix_spawnattr_setsigdefault(&attributes, &defaults)
            var empty = sigset_t()
            sigemptyset(&empty)
            posix_spawnattr_setsigmask(&attributes, &empty)
            posix_spawnattr_setflags(&attributes, Int16(POSIX_SPAWN_SETSIGDEF | POSIX_SPAWN_SETSIGMASK))

            let argv: [UnsafeMutablePointer<CChar>?] = ([path] + arguments).map { strdup($0) } + [nil]
            let variables = ["PATH=/usr/bin:/bin"] + environment.map { "\($0.key)=\($0.value)" }
            let envp: [UnsafeMutablePointer<CChar>?] = variables.map { strdup($0) } + [nil]
            defer {
                argv.forEach { free($0) }
                envp.forEach { free($0) }
            }
            var pid: pid_t = 0
            let result = posix_spawn(&pid, path, &actions, &attributes, argv, envp)
            close(outPipe[1])
            close(errPipe[1])
            guard result == 0 else {
                close(outPipe[0])
                close(errPipe[0])
                throw TestClientError(description: "posix_spawn \(path) failed: \(result)")
            }
            self.pid = pid
            self.stdout = outPipe[0]
            self.stderr = errPipe[0]
        }

        deinit {
            if status == nil {
                kill(pid, SIGKILL)
                var raw: Int32 = 0
                waitpid(pid, &raw, 0)
            }
            close(stdout)
            close(stderr)
        }

        var errorText: String { String(decoding: errors, as: UTF8.self) }
        var outputText: String { String(decoding: output, as: UTF8.self) }

        /// Reads what the child wrote, waiting up to `seconds` for `until` to hold.
        @discardableResult
        func read(for seconds: Double, until done: (Child) -> Bool = { _ in false }) -> Bool {
            let deadline = MonotonicSeconds.now() + seconds
            while !done(self) {
                let left = deadline - MonotonicSeconds.now()
                if left <= 0 { return false }
                var fds = [
                    pollfd(fd: stdout, events: Int16(POLLIN), revents: 0),
                    pollfd(fd: stderr, events: Int16(POLLIN), revents: 0),
                ]
                let ready = poll(&fds, 2, Int32(min(left, 0.1) * 1000) + 1)
                if ready <= 0 {
                    if ready < 0 && errno != EINTR { return false }
                    continue
                }
                var chunk = [UInt8](repeating: 0, count: 65536)
                var sawData = false
                for (index, fd) in [stdout, stderr].enumerated() where fds[index].revents != 0 {
                    let count = chunk.withUnsafeMutableBytes { Glibc.read(fd, $0.baseAddress, $0.count) }
                    if count > 0 {
                        sawData = true
                        if index == 0 { output += chunk[..<count] } else { errors += chunk[..<count] }
                    }
                }
                if !sawData && status != nil { break }
                if !sawData { usleep(1_000) }
            }
            return done(self)
        }

        /// Waits up to `seconds` for the child to exit and returns its exit status (nil on timeout or
        /// when it was killed by a signal), collecting its output on the way.
        func exitStatus(within seconds: Double) -> Int32? {
            let deadline = MonotonicSeconds.now() + seconds
            while status == nil && MonotonicSeconds.now() < deadline {
                var raw: Int32 = 0
                let waited = waitpid(pid, &raw, WNOHANG)
                if waited == pid {
                    // WIFEXITED / WEXITSTATUS, which Swift does not import (they are macros).
                    status = (raw & 0x7F) == 0 ? (raw >> 8) & 0xFF : -(raw & 0x7F)
                    break
                }
                read(for: 0.01)
            }
            read(for: 0.2)
            guard let status, status >= 0 else { return nil }
            return status
        }

        /// The port from the start-up line on stderr.
        func listeningPort(within seconds: Double = 10) -> Int? {
            read(for: seconds) { $0.errorText.contains("listening") && $0.errorText.contains("\n") }
            guard let line = errorText.split(separator: "\n").first(where: { $0.contains("listening") }),
                let field = line.split(separator: " ").first(where: { $0.hasPrefix("port=") })
            else { return nil }
            return Int(field.dropFirst("port=".count))
        }
    }

    /// --help prints the usage on stdout and exits 0.
    @Test func help() throws {
        let child = try Child(["--help"])
        #expect(child.exitStatus(within: 10) == 0)
        #expect(child.outputText.contains("usage: overlayd"))
        #expect(child.outputText.contains("--port"))
        #expect(child.errorText.isEmpty)
    }

    /// --version prints the version and exits 0.
    @Test func version() throws {
        let child = try Child(["--version"])
        #expect(child.exitStatus(within: 10) == 0)
        #expect(child.outputText == "overlayd \(OverlayService.version)\n")
    }

    /// Invalid configuration exits 2 and names the flag, variable or key on stderr, before listening.
    @Test(
        arguments: [
            (["--bogus"], [:], "--bogus"),
            (["--port", "notaport"], [:], "--port"),
            (["--port"], [:], "--port"),
            (["--clock", "sometimes"], [:], "--clock"),
            ([], ["OVERLAYD_MAX_QUEUE": "many"], "OVERLAYD_MAX_QUEUE"),
            ([], ["OVERLAYD_DEVICE": "pixel"], "device"),
            ([], ["OVERLAYD_CONFIG": "/nonexistent/overlayd.json"], "/nonexistent/overlayd.json"),
        ] as [([String], [String: String], String)])
    func invalidConfiguration(arguments: [String], environment: [String: String], named: String) throws {
        let child = try Child(
            arguments + ["--port", "0"].filter { _ in !arguments.contains("--port") }, environment: environment)
        #expect(child.exitStatus(within: 10) == 2)
        #expect(child.errorText.contains(named), "stderr: \(child.errorText)")
        #expect(child.errorText.contains("configuration error"))
        #expect(!child.errorText.contains("listening"))
        #expect(child.outputText.isEmpty)
    }

    /// A key of a configuration file that is wrong is named too.
    @Test func invalidConfigurationFile() throws {
        var template = Array("/tmp/overlayd-test-XXXXXX.json".utf8CString)
        let descriptor = template.withUnsafeMutableBufferPointer { mkstemps($0.baseAddress!, 5) }
        #expect(descriptor >= 0)
        let path = String(decoding: template.prefix { $0 != 0 }.map { UInt8(bitPattern: $0) }, as: UTF8.self)
        defer { unlink(path) }
        let text = Array(#"{"port": 0, "durations": {"info": -1}}"#.utf8)
        #expect(text.withUnsafeBytes { write(descriptor, $0.baseAddress, $0.count) } == text.count)
        close(descriptor)
        let child = try Child(["--config", path])
        #expect(child.exitStatus(within: 10) == 2)
        #expect(child.errorText.contains("durations.info"), "stderr: \(child.errorText)")
    }

    /// Started on a free port, it serves; SIGTERM (or SIGINT) makes it exit 0 well within 5 s.
    @Test(arguments: [SIGTERM, SIGINT])
    func servesThenStopsOnSignal(signal: Int32) throws {
        let child = try Child(["--port", "0", "--clock", "manual", "--ephemeral"])
        let port = try #require(child.listeningPort())
        let posted = try TestClient.request("POST", "/messages?kind=sent", port: port, body: "from a process")
        #expect(posted.status == 202)
        #expect(
            try TestClient.request("GET", "/overlay", port: port).json["message"]?["text"]?.string == "from a process")

        let start = MonotonicSeconds.now()
        #expect(kill(child.pid, signal) == 0)
        #expect(child.exitStatus(within: 5) == 0)
        #expect(MonotonicSeconds.now() - start < 5)
        #expect(child.errorText.contains("overlayd stopped"))
        // One access line per request, with method, path, status and bytes.
        #expect(child.errorText.contains("access method=POST path=/messages status=202 bytes="))
        #expect(child.errorText.contains("access method=GET path=/overlay status=200"))
        // Nothing listens any more.
        #expect(throws: TestSupportError.self) { try TestClient.connect(port: port) }
    }

    /// A request in flight when SIGTERM arrives is finished before the process exits 0.
    @Test func finishesRequestInFlight() throws {
        let child = try Child(["--port", "0", "--clock", "manual", "--ephemeral", "--access-log=false"])
        let port = try #require(child.listeningPort())
        let socket = try TestClient.connect(port: port)
        defer { close(socket) }
        // The interim 100 Continue says the server has the head: the request is in flight.
        let head =
            "POST /messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n"
            + "Expect: 100-continue\r\nConnection: close\r\n\r\n"
        try TestClient.write(socket, Array(head.utf8))
        var interim: [UInt8] = []
        var byte: UInt8 = 0
        while !interim.suffix(4).elementsEqual([13, 10, 13, 10]) && recv(socket, &byte, 1, 0) == 1 {
            interim.append(byte)
        }
        #expect(String(decoding: interim, as: UTF8.self).hasPrefix("HTTP/1.1 100"))

        #expect(kill(child.pid, SIGTERM) == 0)
        // Once the listener is closed the server is stopping; only then does the body follow.
        let deadline = MonotonicSeconds.now() + 5
        var stopping = false
        while !stopping && MonotonicSeconds.now() < deadline {
            if let probe = try? TestClient.connect(port: port) {
                close(probe)
                usleep(2_000)
            } else {
                stopping = true
            }
        }
        #expect(stopping)
        try TestClient.write(socket, Array("in flight!".utf8))
        let response = try TestClient.parse(TestClient.readAll(socket))
        #expect(response.status == 202)
        #expect(response.json["text"]?.string == "in flight!")
        #expect(child.exitStatus(within: 5) == 0)
    }

    /// An ephemeral server keeps nothing, yet its versions never repeat across a restart: the
    /// new process starts beyond every version the old one served, so a reader that reconnects
    /// with the old `Last-Event-ID` (or long-polls since the old version) gets the current overlay
    /// at once, even after the new process has made as many changes as the old one did.
    @Test func ephemeralRestartNeverRepeatsAVersion() throws {
        var previous: Int?
        for _ in 0..<2 {
            let child = try Child(["--port", "0", "--ephemeral", "--access-log=false"])
            let port = try #require(child.listeningPort(), "stderr: \(child.errorText)")
            let start = try #require(TestClient.request("GET", "/overlay", port: port).json["version"]?.int)
            if let previous { #expect(start > previous) }
            // Three changes with no animation and no deadline: three versions exactly.
            for device in ["iphone", "ipad", "iphone"] {
                #expect(try TestClient.request("PUT", "/device", port: port, body: device).status == 200)
            }
            let version = try #require(TestClient.request("GET", "/overlay", port: port).json["version"]?.int)
            #expect(version == start + 3)
            if let previous {
                let stream = try StreamClient.events(port: port, headers: [("Last-Event-ID", "\(previous)")])
                let event = stream.nextEvent(timeout: 2)
                #expect(event?.version == version)
                let poll = try TestClient.request("GET", "/overlay?wait=2&since=\(previous)", port: port)
                #expect(poll.status == 200)
                #expect(poll.json["version"]?.int == version)
            }
            previous = version
            kill(child.pid, SIGTERM)
            #expect(child.exitStatus(within: 5) == 0)
        }
    }

    /// A port already taken is a start-up failure (exit 1), named on stderr.
    @Test func portInUse() throws {
        let live = try LiveServer()
        let child = try Child(["--port", String(live.port), "--ephemeral"])
        #expect(child.exitStatus(within: 10) == 1)
        #expect(child.errorText.contains("cannot listen"), "stderr: \(child.errorText)")
        #expect(try live.get("/healthz").status == 200)
    }
}
