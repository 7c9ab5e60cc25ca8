import Foundation
import OverlayClient
import TestSupport
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// `overlayd watch` in a real terminal: tmux runs it in a detached session, and the test reads
/// the screen (`capture-pane`) and what the program wrote (`pipe-pane`) while it posts, resizes,
/// stops the server and presses Ctrl-C.
@Suite(
    "overlayd watch under tmux", .enabled(if: Tmux.executable != nil, "tmux is not installed (apt-get install tmux)"))
struct WatchCommandTests {
    /// The shell line tmux runs: a marker to find again after Ctrl-C, then watch, then its status.
    /// The shell traps SIGINT so that it outlives watch's Ctrl-C and prints the status, then keeps
    /// the pane alive (a dead pane's screen is not what the program left) until tmux is killed.
    static func command(_ url: URL, environment: String) throws -> String {
        let binary = try OverlaydExecutable.path()
        return "env \(environment) sh -c 'trap true INT; echo the shell screen; '"
            + "'\(binary) watch --url \(url.absoluteString); echo watch exited $?; exec sleep 30'"
    }

    static func rows(_ screen: String) -> [Substring] {
        screen.split(separator: "\n", omittingEmptySubsequences: false)
    }

    static func blocks(_ screen: String) -> Int {
        rows(screen).map { $0.filter { $0 == "█" }.count }.max() ?? 0
    }

    /// 24-bit colours, the progress bar and its width, a fade drawn frame by frame and then no
    /// output at all while nothing moves, a resize, a new message, and Ctrl-C giving the screen back.
    @Test func drawsAndGivesTheScreenBack() async throws {
        let directory = try TemporaryDirectory()
        let configuration = try directory.write("fade.json", #"{"showStyle": "fade", "showDuration": 1.5}"#)
        let server = try await ServerProcess.start(["--clock", "manual", "--ephemeral", "--config", configuration])
        let client = OverlayClient(url: server.url)
        let tmux = try await Tmux.start(
            try Self.command(server.url, environment: "COLORTERM=truecolor"), columns: 100, rows: 12)

        #expect(await eventually { await tmux.screen().contains("default · v0 · hidden") }, "\(tmux.lastScreen)")
        #expect(await tmux.pane("#{alternate_on} #{cursor_flag}") == "1 0")
        #expect(await tmux.screen().contains("the shell screen") == false)
        let recording = directory.path + "/output"
        try await tmux.record(to: recording)

        _ = try await client.post("Uploading photo", kind: .progress, progress: 0.5)
        #expect(await eventually { await tmux.screen().contains("Uploading photo") }, "\(tmux.lastScreen)")
        #expect(await eventually { Self.blocks(await tmux.screen()) == 50 }, "\(tmux.lastScreen)")
        // The fade ends 1.5 s after the post (on this machine's clock): then at full colour.
        #expect(
            await eventually { await tmux.screen(escapes: true).contains("48;2;0;122;255m") },
            "\(tmux.lastScreen)")
        #expect(await tmux.screen(escapes: true).contains("38;2;255;255;255m"))
        let rows = Self.rows(await tmux.screen())
        #expect(rows.count >= 3 && rows[1].contains("Uploading photo") && rows[2].hasPrefix("█"))
        #expect(rows.last { !$0.isEmpty }?.contains("v1 · showing · progress #1 · 50%") == true)

        // tmux passes what the program wrote on to the recording as it can: the fade's last frame
        // is there once the last frame recorded has its blue and is whole.
        #expect(
            await eventually {
                let last = Self.frames(Files.text(recording)).last ?? ""
                return Self.backgrounds(last).contains("0;122;255") && Self.isWhole(last, rows: 12)
            })
        // The fade was drawn frame by frame: a dimmed blue between black and #007AFF before it.
        let shades = Set(Self.backgrounds(Files.text(recording)))
        let dimmed = shades.filter { shade in
            let rgb = shade.split(separator: ";").compactMap { Int($0) }
            return rgb.count == 3 && rgb[0] == 0 && (1..<122).contains(rgb[1]) && (1..<255).contains(rgb[2])
        }
        #expect(!dimmed.isEmpty, "only \(shades.sorted()) drawn during the fade")

        // Once nothing moves, nothing is written. A resize is the marker: the program handles it
        // after whatever it would have drawn first, so the first frame written after the fade's
        // last must be the resize's (a 30-block bar at 60 columns), not another at 100 columns.
        let still = try #require(Files.size(recording))
        try await tmux.resize(columns: 60, rows: 10)
        #expect(await eventually { Self.blocks(await tmux.screen()) == 30 }, "\(tmux.lastScreen)")
        #expect(
            await eventually { Self.isWhole(Self.frames(Files.text(recording, from: still)).first ?? "", rows: 10) })
        let written = Files.text(recording, from: still)
        #expect(written.hasPrefix(Self.frameStart), "\(written)")
        #expect(Self.blocks(Self.frames(written).first ?? "") == 30, "\(written)")

        _ = try await client.post("Upload failed", kind: .failed, immediate: true)
        #expect(await eventually { await tmux.screen().contains("Upload failed") }, "\(tmux.lastScreen)")
        #expect(await tmux.screen().contains("Uploading photo") == false)
        #expect(Self.blocks(await tmux.screen()) == 0)
        #expect(await eventually { await tmux.screen(escapes: true).contains("48;2;255;59;48m") })

        try await tmux.keys("C-c")
        #expect(await eventually { await tmux.screen().contains("watch exited 0") }, "\(tmux.lastScreen)")
        #expect(await tmux.screen().contains("the shell screen"), "\(tmux.lastScreen)")
        #expect(await tmux.screen().contains("Upload failed") == false)
        #expect(await tmux.pane("#{alternate_on} #{cursor_flag}") == "0 1", "\(tmux.lastScreen)")
        #expect(await tmux.screen(escapes: true).contains("48;2;") == false)
    }

    /// Without COLORTERM: the palette's colours and the spinner; the server going away shows
    /// "reconnecting…", and its return the overlay again.
    @Test func paletteAndReconnection() async throws {
        var server = try await ServerProcess.start(["--clock", "manual", "--ephemeral"])
        let port = server.port
        let tmux = try await Tmux.start(try Self.command(server.url, environment: "-u COLORTERM"), columns: 80, rows: 8)
        #expect(await eventually { await tmux.screen().contains("v0 · hidden") }, "\(tmux.lastScreen)")

        _ = try await OverlayClient(url: server.url).post("Sending…", kind: .sending)
        #expect(await eventually { await tmux.screen().contains("Sending…") }, "\(tmux.lastScreen)")
        #expect(await eventually { await tmux.screen(escapes: true).contains("48;5;234m") }, "\(tmux.lastScreen)")
        #expect(await tmux.screen(escapes: true).contains("48;2;") == false)
        let spinner = Set("⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏")
        #expect(await tmux.screen().contains { spinner.contains($0) })

        await server.stop()
        #expect(
            await eventually { await tmux.screen().contains("reconnecting… (connection refused)") },
            "\(tmux.lastScreen)")
        server = try await ServerProcess.start(["--clock", "manual", "--ephemeral"], port: port)
        _ = try await OverlayClient(url: server.url).post("Back again", kind: .sent)
        #expect(await eventually { await tmux.screen().contains("Back again") }, "\(tmux.lastScreen)")
        #expect(await tmux.screen().contains("reconnecting") == false)
        #expect(await eventually { await tmux.screen(escapes: true).contains("48;5;77m") })

        try await tmux.keys("C-c")
        #expect(await eventually { await tmux.screen().contains("watch exited 0") }, "\(tmux.lastScreen)")
        #expect(await tmux.pane("#{alternate_on} #{cursor_flag}") == "0 1", "\(tmux.lastScreen)")
    }

    /// Each frame starts at the top left and ends with the status line on the last row.
    static let frameStart = "\u{1B}[1;1H"

    /// The frames in what the program wrote (what came before the first is dropped).
    static func frames(_ output: String) -> [String] {
        Array(output.components(separatedBy: frameStart).dropFirst())
    }

    /// Whether `frame` has come whole, down to the end of the status line on row `rows`.
    static func isWhole(_ frame: String, rows: Int) -> Bool {
        frame.contains("\u{1B}[\(rows);1H") && frame.hasSuffix("\u{1B}[0m\u{1B}[K")
    }

    /// The 24-bit backgrounds written, as "r;g;b".
    static func backgrounds(_ output: String) -> [String] {
        output.components(separatedBy: "48;2;").dropFirst().compactMap {
            $0.split(separator: "m").first.map(String.init)
        }
    }
}

/// Without a terminal, watch prints one line per change.
@Suite("overlayd watch without a terminal")
struct WatchLinesTests {
    @Test func linePerChange() async throws {
        let server = try await ServerProcess.start(["--clock", "manual", "--ephemeral"])
        let watch = try ChildProcess(try OverlaydExecutable.path(), ["watch", "--url", server.url.absoluteString])
        #expect(await eventually { watch.outputText.contains("v0 hidden\n") })
        _ = try await OverlayClient(url: server.url).post("Hello there", kind: .info, progress: 0.3)
        #expect(
            await eventually { watch.outputText.contains("v1 showing info #1 \"Hello there\" 30%\n") },
            "\(watch.outputText)")
        watch.kill(SIGINT)
        let status = try await offPool { watch.exitStatus() }
        #expect(status == 0, "status \(String(describing: status)): \(watch.errorText)")
    }
}

/// What retrying cannot mend ends watch with the server's reason, status 2 for a refusal.
@Suite("overlayd watch refused")
struct WatchRefusedTests {
    @Test func withoutTheReadToken() async throws {
        let server = try await ServerProcess.start(
            ["--clock", "manual", "--ephemeral"], environment: ["OVERLAYD_READ_TOKEN": "watch-token"])
        let refused = try await CommandRun.run(["watch", "--url", server.url.absoluteString])
        #expect(refused.status == 2)
        #expect(refused.errors.contains("overlayd watch:"))
        #expect(refused.errors.lowercased().contains("token"), "\(refused.errors)")
        let usage = try await CommandRun.run(["watch", "now"])
        #expect(usage.status == 2)
        #expect(usage.errors.contains("watch takes no operand"))
    }
}

enum Files {
    static func size(_ path: String) -> Int? {
        (try? FileManager.default.attributesOfItem(atPath: path)[.size] as? Int) ?? nil
    }

    static func text(_ path: String) -> String { TemporaryDirectory.read(path) }

    /// What was written to `path` after its first `offset` bytes.
    static func text(_ path: String, from offset: Int) -> String {
        String(decoding: Array(text(path).utf8).dropFirst(offset), as: UTF8.self)
    }
}
