import Foundation
import OverlayClient
import Testing

/// `overlayd post` as a person runs it: the id on stdout, the server's refusal on stderr, and
/// the exit status a script can test.
@Suite("overlayd post")
struct PostCommandTests {
    let server: ServerProcess
    let client: OverlayClient

    init() async throws {
        server = try await ServerProcess.start(["--clock", "manual", "--ephemeral"])
        client = OverlayClient(url: server.url)
    }

    var url: String { server.url.absoluteString }

    /// Every option reaches the server; the id is printed alone on stdout.
    @Test func postsWithEveryOption() async throws {
        let run = try await CommandRun.run([
            "post", "Downloading…", "--kind", "progress", "--progress=0.25", "--key", "dl-7", "--duration", "9",
            "--immediate", "--subtitle", "photos.zip", "--icon", "⬇️", "--url", url,
        ])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output == "1\n")
        #expect(run.errors.isEmpty)
        let message = try await client.message(1)
        #expect(message.text == "Downloading…")
        #expect(message.kind == .progress)
        #expect(message.progress == 0.25)
        #expect(message.key == "dl-7")
        #expect(message.duration == 9)
        #expect(message.immediate == true)
        #expect(message.subtitle == "photos.zip")
        #expect(message.icon == "⬇️")

        // The key again, without a text: the same message, updated.
        let update = try await CommandRun.run(["post", "--key", "dl-7", "--progress", "0.5", "--url", url])
        #expect(update.status == 0, "\(update.errors)")
        #expect(update.output == "1\n")
        #expect(try await client.message(1).progress == 0.5)
    }

    /// `--click`, `--action` (repeated, in order; the label ends at the second `=`, the URL keeps
    /// its own) and `--accessibility-label` reach the server; a malformed `--action` is a usage
    /// error, and an action the server refuses names its place.
    @Test func clickAndActions() async throws {
        let run = try await CommandRun.run([
            "post", "Build 42 failed", "--click", "https://ci.example/42", "--action",
            "retry=Retry=https://ci.example/42?retry=1", "--action=mute=Mute", "--accessibility-label",
            "Build forty-two failed", "--url", url,
        ])
        #expect(run.status == 0, "\(run.errors)")
        let message = try await client.message(1)
        #expect(message.click == "https://ci.example/42")
        #expect(
            message.actions == [
                Message.Action(id: "retry", label: "Retry", url: "https://ci.example/42?retry=1"),
                Message.Action(id: "mute", label: "Mute"),
            ])
        #expect(message.accessibilityLabel == "Build forty-two failed")

        let malformed = try await CommandRun.run(["post", "x", "--action", "justanid", "--url", url])
        #expect(malformed.status == 2)
        #expect(malformed.errors.contains("--action must be ID=LABEL or ID=LABEL=URL"))
        let refused = try await CommandRun.run(["post", "x", "--action", "a=A", "--action", "a=B", "--url", url])
        #expect(refused.status == 2)
        #expect(refused.errors.contains("(actions[1].id) [422 invalid_field]"))
        #expect(try await client.messages().count == 1)
    }

    /// TEXT `-` is standard input.
    @Test func textFromStandardInput() async throws {
        let run = try await CommandRun.run(["post", "-", "--url", url, "--kind", "sent"], input: "Build 42 passed\n")
        #expect(run.status == 0, "\(run.errors)")
        let message = try await client.message(Int(run.output.trimmingCharacters(in: .whitespacesAndNewlines))!)
        #expect(message.text == "Build 42 passed")
        #expect(message.kind == .sent)
    }

    /// A channel's message goes to that channel.
    @Test func channel() async throws {
        let run = try await CommandRun.run(["post", "Deployed", "--channel", "ops", "--url", url])
        #expect(run.status == 0, "\(run.errors)")
        #expect(try await OverlayClient(url: server.url, channel: "ops").overlay().label?.text == "Deployed")
        #expect(try await client.overlay().message == nil)
    }

    /// A refusal: the server's message and field on stderr, status 2, nothing posted.
    @Test func refusal() async throws {
        let run = try await CommandRun.run(["post", "Too far", "--progress", "1.5", "--url", url])
        #expect(run.status == 2)
        #expect(run.output.isEmpty)
        #expect(run.errors.contains("progress"))
        #expect(run.errors.contains("422 invalid_field"))
        #expect(try await client.messages().isEmpty)
    }

    /// `--delay`, `--at`, `--expires` and `--priority` reach the server as written, units and
    /// names read there; a keyed post updates the scheduled message.
    @Test func schedulingOptions() async throws {
        let run = try await CommandRun.run([
            "post", "Stand-up", "--delay", "2m", "--priority", "high", "--expires=30s", "--key", "standup", "--url",
            url,
        ])
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.output == "1\n")
        let scheduled = try await client.message(1)
        #expect(scheduled.state == .scheduled)
        #expect(scheduled.scheduledFor == 120)
        #expect(scheduled.priority == .high)
        #expect(scheduled.expires == 30)
        #expect(try await client.overlay().scheduled == 1)

        let update = try await CommandRun.run(["post", "--key", "standup", "--priority", "urgent", "--url", url])
        #expect(update.status == 0, "\(update.errors)")
        #expect(update.output == "1\n")
        #expect(try await client.message(1).priority == .max)
        #expect(try await client.message(1).state == .scheduled)

        let at = try await CommandRun.run(["post", "Retro", "--at", "30", "--priority", "2", "--url", url])
        #expect(at.status == 0, "\(at.errors)")
        #expect(try await client.messages(.scheduled).map(\.text) == ["Retro", "Stand-up"])
        #expect(try await client.message(2).priority == .low)
    }

    /// A schedule value the server refuses: its message, field, status and code on stderr, exit
    /// 2, nothing posted; a flag without its value is a usage error before any request.
    @Test(arguments: [
        (["--delay", "5x"], "(delay) [400 bad_request]"),
        (["--delay", "8d"], "(delay) [422 invalid_field]"),
        (["--delay", "0"], "(delay) [422 invalid_field]"),
        (["--delay", "5", "--at", "9"], "(at) [400 bad_request]"),
        (["--at", "2026-12-02T10:30:00Z"], "(at) [422 invalid_field]"),
        (["--at", "tomorrow"], "(at) [400 bad_request]"),
        (["--expires", "1h30m"], "(expires) [400 bad_request]"),
        (["--expires", "-1m"], "(expires) [422 invalid_field]"),
        (["--priority", "urgentest"], "(priority) [422 invalid_field]"),
        (["--priority", "6"], "(priority) [422 invalid_field]"),
        (["--priority", ""], "(priority) [422 invalid_field]"),
        (["--delay"], "--delay needs a value"),
        (["--priority", "1", "--priority", "2"], "--priority is given twice"),
    ])
    func scheduleRefusals(options: [String], reason: String) async throws {
        let run = try await CommandRun.run(["post", "Stand-up", "--url", url] + options)
        #expect(run.status == 2)
        #expect(run.output.isEmpty)
        #expect(run.errors.contains(reason), "\(run.errors)")
        // The server's refusal comes without the usage; a command line it cannot run, with it.
        #expect(run.errors.contains("usage: overlayd post") == !reason.hasPrefix("("), "\(run.errors)")
        #expect(try await client.messages().isEmpty)
        #expect(try await client.messages(.scheduled).isEmpty)
    }

    /// `post --help` names each schedule flag and its forms.
    @Test func helpListsTheScheduleFlags() async throws {
        let run = try await CommandRun.run(["post", "--help"])
        #expect(run.status == 0)
        for flag in ["--delay WAIT", "--at TIME", "--expires WAIT", "--priority P", "5m", "RFC 3339", "urgent"] {
            #expect(run.output.contains(flag), "\(flag)")
        }
    }

    /// Nothing listening: status 1, and the URL it tried.
    @Test func unreachable() async throws {
        let port = server.port
        await server.stop()
        let run = try await CommandRun.run(["post", "anyone?", "--url", "http://127.0.0.1:\(port)"])
        #expect(run.status == 1)
        #expect(run.errors.contains("http://127.0.0.1:\(port) cannot be reached: connection refused"))
    }

    /// The token comes from OVERLAYD_TOKEN or --token; without it the server refuses (2).
    @Test func token() async throws {
        let guarded = try await ServerProcess.start(
            ["--clock", "manual", "--ephemeral"], environment: ["OVERLAYD_TOKEN": "post-token-1"])
        let target = guarded.url.absoluteString
        let refused = try await CommandRun.run(["post", "hi", "--url", target])
        #expect(refused.status == 2)
        #expect(refused.errors.contains("401 unauthorized"))
        let fromEnvironment = try await CommandRun.run(
            ["post", "hi", "--url", target], environment: ["OVERLAYD_TOKEN": "post-token-1"])
        #expect(fromEnvironment.status == 0, "\(fromEnvironment.errors)")
        let fromFlag = try await CommandRun.run(["post", "hi again", "--url", target, "--token", "post-token-1"])
        #expect(fromFlag.status == 0, "\(fromFlag.errors)")
        #expect(try await OverlayClient(url: guarded.url).messages().map(\.text) == ["hi", "hi again"])
    }

    /// A command line that cannot be run: status 2, the reason and the usage, nothing posted.
    @Test(arguments: [
        (["post"], "TEXT is missing"),
        (["post", "a", "b"], "one TEXT only"),
        (["post", "x", "--bogus"], "unknown option --bogus"),
        (["post", "x", "--progress", "half"], "--progress must be a number"),
        (["post", "x", "--kind"], "--kind needs a value"),
        (["post", "x", "--immediate=yes"], "--immediate takes no value"),
        (["post", "x", "--url", "localhost:8080"], "--url must be an http:// or https:// URL"),
        (["post", "x", "--token", "abc\r\nX-Forged: 1"], "the token must not contain control characters"),
    ])
    func usageErrors(arguments: [String], reason: String) async throws {
        let run = try await CommandRun.run(
            arguments.contains("--url") ? arguments : ["post", "--url", url] + arguments.dropFirst())
        #expect(run.status == 2)
        #expect(run.errors.contains(reason), "\(run.errors)")
        #expect(run.errors.contains("usage: overlayd post"))
        #expect(try await client.messages().isEmpty)
    }
}

/// The executable's command line: subcommands, help, and the server path as it was.
@Suite("overlayd command line")
struct CommandLineTests {
    @Test(arguments: [["post", "--help"], ["watch", "--help"], ["help"], ["--help"], ["serve", "--help"]])
    func help(arguments: [String]) async throws {
        let run = try await CommandRun.run(arguments)
        #expect(run.status == 0)
        #expect(run.output.contains("usage: overlayd"))
        #expect(run.errors.isEmpty)
        if arguments.first == "serve" || arguments == ["--help"] {
            #expect(run.output.contains("--port"))
            #expect(run.output.contains("overlayd post TEXT"))
        }
    }

    /// A first argument that is neither a subcommand nor a flag is an error, not a server start.
    @Test func unknownCommand() async throws {
        let run = try await CommandRun.run(["publish", "hello"])
        #expect(run.status == 2)
        #expect(run.errors.contains("unknown command \"publish\""))
    }

    /// Server flags with and without `serve` still reach the server's configuration.
    @Test func serverFlags() async throws {
        #expect(try await CommandRun.run(["--version"]).output.hasPrefix("overlayd "))
        let bad = try await CommandRun.run(["serve", "--port", "notaport"])
        #expect(bad.status == 2)
        #expect(bad.errors.contains("--port"))
        let flagFirst = try await CommandRun.run(["--clock", "sometimes"])
        #expect(flagFirst.status == 2)
        #expect(flagFirst.errors.contains("--clock"))
    }

    /// `overlayd serve …` serves.
    @Test func serve() async throws {
        let server = try await ServerProcess.start(["--clock", "manual", "--ephemeral"], subcommand: ["serve"])
        #expect(try await OverlayClient(url: server.url).overlay().version == 0)
    }
}
