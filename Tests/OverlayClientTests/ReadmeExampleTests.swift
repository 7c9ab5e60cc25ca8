import Foundation
import OverlayClient
import TestSupport
import Testing

/// The README's "From Swift" example, line for line but for the server's address, which a test
/// cannot fix: it compiles here, and it runs to its end against a real server.
func readmeExample(_ address: String) async throws {
    // README begin
    let client = OverlayClient(url: URL(string: address)!)

    // A message while the upload runs, turned into "sent" when it is done.
    let message = try await client.post("Sending photo…", kind: .sending)
    try await client.patch(message.id, kind: .sent, text: "Photo sent")

    // The overlay now, then each change as it happens, until the overlay has hidden again.
    for try await overlay in client.updates() {
        print(overlay.version, overlay.phase, overlay.label?.text ?? "")
        // Between changes, a running slide or fade is drawn from this one overlay at display rate:
        // `at` gives contentOffset, alpha and the frames at any instant of the server's clock.
        let later = overlay.at(overlay.now + 0.125)
        print(later.contentOffset, later.alpha)
        if overlay.phase == .hidden { break }
    }
    // README end
}

@Suite("README")
struct ReadmeExampleTests {
    static let root = URL(fileURLWithPath: Repository.root)

    /// The example in the README is the one compiled above.
    @Test func exampleIsTheCompiledOne() async throws {
        let readme = try String(contentsOf: Self.root.appendingPathComponent("README.md"), encoding: .utf8)
        let section = try #require(readme.components(separatedBy: "## From Swift").dropFirst().first)
        let block = try #require(
            section.components(separatedBy: "```swift\n").dropFirst().first?
                .components(separatedBy: "\n```").first)
        let source = try String(contentsOf: URL(fileURLWithPath: #filePath), encoding: .utf8)
        let body = try #require(
            source.components(separatedBy: "    // README begin\n").dropFirst().first?
                .components(separatedBy: "\n    // README end").first)
        let compiled = body.split(separator: "\n", omittingEmptySubsequences: false)
            .map { $0.hasPrefix("    ") ? String($0.dropFirst(4)) : String($0) }
            .joined(separator: "\n")
            .replacingOccurrences(of: "URL(string: address)!", with: "URL(string: \"http://127.0.0.1:8080\")!")
        #expect(block == "import Foundation\nimport OverlayClient\n\n" + compiled)
    }

    /// It runs to its end (the overlay hides) against a server on the real clock.
    @Test func exampleRuns() async throws {
        let server = try await ServerProcess.start(["--ephemeral"])
        try await readmeExample(server.url.absoluteString)
        let overlay = try await OverlayClient(url: server.url).overlay()
        #expect(overlay.phase == .hidden)
        #expect(try await OverlayClient(url: server.url).message(1).state == .done)
    }
}

/// The "In a terminal" commands of docs/CLIENTS.md (the README's until it became a front page), run
/// by a shell as written but for the server's address (and a token for the `…` it leaves to the
/// reader). The server runs on the real clock, where `--at` takes the date the example gives (a
/// date that has passed is no delay at all, so the example keeps running).
@Suite("Terminal example of docs/CLIENTS.md")
struct ReadmeTerminalTests {
    @Test func postLinesRun() async throws {
        let clients = try String(
            contentsOf: ReadmeExampleTests.root.appendingPathComponent("docs/CLIENTS.md"), encoding: .utf8)
        let section = try #require(clients.components(separatedBy: "## In a terminal").dropFirst().first)
        let block = try #require(
            section.components(separatedBy: "```sh\n").dropFirst().first?.components(separatedBy: "\n```").first)
        let lines = block.split(separator: "\n").map(String.init).filter { $0.contains("overlayd post") }
        #expect(lines.count == 8)

        let server = try await ServerProcess.start(["--clock", "real", "--ephemeral"])
        let directory = URL(fileURLWithPath: try OverlaydExecutable.path()).deletingLastPathComponent().path
        var ids: [Int] = []
        for line in lines {
            var command = line.components(separatedBy: "  #").first!.trimmingCharacters(in: .whitespaces)
            command = command.replacingOccurrences(of: "OVERLAYD_TOKEN=…", with: "OVERLAYD_TOKEN=any-token")
            if let range = command.range(of: #"--url \S+"#, options: .regularExpression) {
                command.replaceSubrange(range, with: "--url \(server.url.absoluteString)")
            } else {
                command += " --url \(server.url.absoluteString)"
            }
            let run = try await CommandRun.run(
                ["-c", command], shell: "/bin/sh", environment: ["PATH": "\(directory):/usr/bin:/bin"])
            #expect(run.status == 0, "\(command): \(run.errors)")
            let id = Int(run.output.trimmingCharacters(in: .whitespacesAndNewlines))
            #expect(id != nil, "\(command): \(run.output)")
            ids.append(id ?? 0)
        }
        let client = OverlayClient(url: server.url)
        #expect(try await client.message(2).progress == 0.8)
        #expect(try await client.message(3).text == "Nightly backup done")
        // By id, not in the live list: on the real clock a `sent` message may have shown and
        // ended by now on a slow machine, and the history still holds it.
        #expect(try await OverlayClient(url: server.url, channel: "ops").message(ids[4]).text == "Deployed")
        // The schedule lines, by the ids they printed: a wait of 5 minutes, and the top priority.
        let standUp = try await client.message(ids[5])
        #expect(standUp.state == .scheduled)
        #expect(standUp.expires == 600)
        let wait = try #require(standUp.scheduledFor) - (try #require(standUp.postedAt))
        #expect(abs(wait - 300) < 1e-6, "\(wait)")
        // Scheduled or not depending on today's date: only that it was posted.
        #expect(try await client.message(ids[6]).text == "Retro")
        #expect(try await client.message(ids[7]).priority == .max)
    }
}
