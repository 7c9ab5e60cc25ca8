import ServiceTestSupport
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
/// it is looked for. Each runs as a `ChildProcess` (TestSupport).
@Suite("overlayd process")
struct ProcessTests {
    /// --help prints the usage on stdout and exits 0.
    @Test func help() throws {
        let child = try ChildProcess.overlayd(["--help"])
        #expect(child.exitStatus() == 0)
        #expect(child.outputText.contains("usage: overlayd"))
        #expect(child.outputText.contains("--port"))
        #expect(child.errorText.isEmpty)
    }

    /// --version prints the version and exits 0.
    @Test func version() throws {
        let child = try ChildProcess.overlayd(["--version"])
        #expect(child.exitStatus() == 0)
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
        let child = try ChildProcess.overlayd(
            arguments + ["--port", "0"].filter { _ in !arguments.contains("--port") }, environment: environment)
        #expect(child.exitStatus() == 2)
        #expect(child.errorText.contains(named), "stderr: \(child.errorText)")
        #expect(child.errorText.contains("configuration error"))
        #expect(!child.errorText.contains("listening"))
        #expect(child.outputText.isEmpty)
    }

    /// A key of a configuration file that is wrong is named too.
    @Test func invalidConfigurationFile() throws {
        let directory = try TemporaryDirectory()
        let path = try directory.write("overlayd.json", #"{"port": 0, "durations": {"info": -1}}"#)
        let child = try ChildProcess.overlayd(["--config", path])
        #expect(child.exitStatus() == 2)
        #expect(child.errorText.contains("durations.info"), "stderr: \(child.errorText)")
    }

    /// A font that cannot be loaded (missing, or a file that is no font) stops start-up with exit
    /// code 2 naming `text.font` and the file, before listening.
    @Test(arguments: [false, true])
    func unusableFont(exists: Bool) throws {
        let directory = try TemporaryDirectory()
        let font = exists ? try directory.write("font.otf", "not a font") : directory.path + "/missing.otf"
        let path = try directory.write("overlayd.json", #"{"port": 0, "text": {"font": "\#(font)"}}"#)
        let child = try ChildProcess.overlayd(["--config", path])
        #expect(child.exitStatus() == 2)
        #expect(child.errorText.contains("text.font"), "stderr: \(child.errorText)")
        #expect(child.errorText.contains(font), "stderr: \(child.errorText)")
        #expect(!child.errorText.contains("listening"))
    }

    /// Started on a free port, it serves; SIGTERM (or SIGINT) makes it stop and exit 0.
    @Test(arguments: [SIGTERM, SIGINT])
    func servesThenStopsOnSignal(signal: Int32) throws {
        let child = try ChildProcess.overlayd(["--port", "0", "--clock", "manual", "--ephemeral"])
        let port = try #require(child.listeningPort())
        let posted = try RawClient.request("POST", "/messages?kind=sent", port: port, body: "from a process")
        #expect(posted.status == 202)
        #expect(
            try RawClient.request("GET", "/overlay", port: port).json["message"]?["text"]?.string == "from a process")

        #expect(kill(child.pid, signal) == 0)
        #expect(child.exitStatus() == 0)
        #expect(child.errorText.contains("overlayd stopped"))
        // One access line per request, with method, path, status and bytes.
        #expect(child.errorText.contains("access method=POST path=/messages status=202 bytes="))
        #expect(child.errorText.contains("access method=GET path=/overlay status=200"))
        // Nothing of it listens any more: the process has exited (a connection to the port now
        // could reach another test's server, given the freed port).
    }

    /// A request in flight when SIGTERM arrives is finished before the process exits 0.
    @Test func finishesRequestInFlight() throws {
        let child = try ChildProcess.overlayd(["--port", "0", "--clock", "manual", "--ephemeral", "--access-log=false"])
        let port = try #require(child.listeningPort())
        let socket = try Loopback.connect(port: port)
        defer { close(socket) }
        // The interim 100 Continue says the server has the head: the request is in flight.
        let head =
            "POST /messages HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: text/plain\r\nContent-Length: 10\r\n"
            + "Expect: 100-continue\r\nConnection: close\r\n\r\n"
        try Loopback.write(socket, Array(head.utf8))
        var interim: [UInt8] = []
        var byte: UInt8 = 0
        while !interim.suffix(4).elementsEqual([13, 10, 13, 10]) && recv(socket, &byte, 1, 0) == 1 {
            interim.append(byte)
        }
        #expect(String(decoding: interim, as: UTF8.self).hasPrefix("HTTP/1.1 100"))

        #expect(kill(child.pid, SIGTERM) == 0)
        // Once the listener is closed the server is stopping; only then does the body follow.
        let stopping = eventually {
            guard let probe = try? Loopback.connect(port: port) else { return true }
            close(probe)
            return false
        }
        #expect(stopping)
        try Loopback.write(socket, Array("in flight!".utf8))
        let response = try HTTPReply.parse(Loopback.readAll(socket))
        #expect(response.status == 202)
        #expect(response.json["text"]?.string == "in flight!")
        #expect(child.exitStatus() == 0)
    }

    /// An ephemeral server keeps nothing, yet its versions never repeat across a restart: the
    /// new process starts beyond every version the old one served, so a reader that reconnects
    /// with the old `Last-Event-ID` (or long-polls since the old version) gets the current overlay
    /// at once, even after the new process has made as many changes as the old one did.
    @Test func ephemeralRestartNeverRepeatsAVersion() throws {
        var previous: Int?
        for _ in 0..<2 {
            let child = try ChildProcess.overlayd(["--port", "0", "--ephemeral", "--access-log=false"])
            let port = try #require(child.listeningPort(), "stderr: \(child.errorText)")
            let start = try #require(RawClient.request("GET", "/overlay", port: port).json["version"]?.int)
            if let previous { #expect(start > previous) }
            // Three changes with no animation and no deadline: three versions exactly.
            for device in ["iphone", "ipad", "iphone"] {
                #expect(try RawClient.request("PUT", "/device", port: port, body: device).status == 200)
            }
            let version = try #require(RawClient.request("GET", "/overlay", port: port).json["version"]?.int)
            #expect(version == start + 3)
            if let previous {
                let stream = try StreamClient.events(port: port, headers: [("Last-Event-ID", "\(previous)")])
                let event = stream.nextEvent()
                #expect(event?.version == version)
                let poll = try RawClient.request("GET", "/overlay?wait=2&since=\(previous)", port: port)
                #expect(poll.status == 200)
                #expect(poll.json["version"]?.int == version)
            }
            previous = version
            kill(child.pid, SIGTERM)
            #expect(child.exitStatus() == 0)
        }
    }

    /// A port already taken is a start-up failure (exit 1), named on stderr.
    @Test func portInUse() throws {
        try withLiveServer { live in
            let child = try ChildProcess.overlayd(["--port", String(live.port), "--ephemeral"])
            #expect(child.exitStatus() == 1)
            #expect(child.errorText.contains("cannot listen"), "stderr: \(child.errorText)")
            #expect(try live.get("/healthz").status == 200)
        }
    }
}
