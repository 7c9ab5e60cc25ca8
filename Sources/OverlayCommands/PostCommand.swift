import OverlayClientCore

#if canImport(FoundationEssentials)
    import FoundationEssentials
#else
    import Foundation
#endif
#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `overlayd post TEXT [options]`: posts one message and prints its id.
enum PostCommand {
    static let usage = """
        usage: overlayd post TEXT [options]

        Posts a message to overlayd and prints its id. TEXT "-" reads the text from standard input.

        options:
          --kind KIND       sending, sent, failed, progress or info (the server's default: info)
          --key KEY         the sender's name for the message: posting a key that names a live
                            or scheduled message updates it (TEXT may then be left out)
          --subtitle TEXT   a second, smaller line under the text (full-width bar and pill)
          --icon ICON       an emoji or up to 4 characters beside the text
          --progress P      0 to 1: show a progress bar
          --duration S      seconds it stays once shown (default: the kind's)
          --immediate       replace the shown message at once
          --delay WAIT      show it later: seconds, or a number with a unit s, m, h or d
                            (90, 30s, 5m, 2h, 1d; at most 7 days); it waits as scheduled
          --at TIME         show it at TIME: an RFC 3339 date-time (2026-12-02T10:30:00Z) or
                            Unix seconds; on a manual clock, seconds on that clock
          --expires WAIT    drop it if it is still waiting WAIT after it joined the queue
          --priority P      1 to 5, or min, low, default, high, max (urgent = max): higher
                            ones wait ahead of lower ones (default: the kind's)
          --click URL       what a tap on the overlay opens (https:, or an app's own scheme)
          --action ID=LABEL[=URL]
                            a button beside the message (up to 3, in order; repeat the option):
                            its id (A-Z a-z 0-9 _ -), its label (no "="), and what it opens
          --accessibility-label TEXT
                            what VoiceOver reads instead of the kind, text and progress
          --channel NAME    the channel (default)
          --url URL         the server (http://127.0.0.1:8080)
          --token TOKEN     the write token (default: OVERLAYD_TOKEN, which stays out of `ps`)
          --help            this text

        exit status: 0 posted, 1 the server cannot be reached, 2 the server refused the message
        or the command line is wrong.
        """

    static func run(_ commandLine: [String], environment: [String: String]) async -> Int32 {
        let arguments: Arguments
        let client: OverlayClient
        let text: String?
        do throws(UsageError) {
            arguments = try Arguments(
                commandLine,
                options: [
                    "--kind", "--key", "--subtitle", "--icon", "--progress", "--duration", "--delay", "--at",
                    "--expires", "--priority", "--channel", "--url", "--token", "--click", "--accessibility-label",
                ],
                repeatable: ["--action"],
                switches: ["--immediate"])
            if arguments.has("--help") {
                print(usage)
                return 0
            }
            client = try Commands.client(arguments, environment: environment, readOnly: false)
            guard arguments.operands.count <= 1 else {
                throw UsageError(
                    "one TEXT only (quote a text with spaces): \(arguments.operands.joined(separator: " "))")
            }
            text = arguments.operands.first
            guard text != nil || arguments["--key"] != nil else {
                throw UsageError("TEXT is missing (or give --key to update a live message)")
            }
            let progress = try arguments.number("--progress")
            let duration = try arguments.number("--duration")
            let actions = try arguments.all("--action").map(action)
            return await post(text, progress: progress, duration: duration, actions: actions, arguments, client)
        } catch {
            Output.error("overlayd post: \(error)\n\(usage)")
            return 2
        }
    }

    /// `ID=LABEL` or `ID=LABEL=URL`: the label ends at the second `=`, so that a URL keeps its own.
    /// The server judges the parts, naming the action (`actions[1].label`).
    static func action(_ text: String) throws(UsageError) -> Message.Action {
        let parts = text.split(separator: "=", maxSplits: 2, omittingEmptySubsequences: false)
        guard parts.count >= 2 else { throw UsageError("--action must be ID=LABEL or ID=LABEL=URL, not \"\(text)\"") }
        return Message.Action(
            id: String(parts[0]), label: String(parts[1]), url: parts.count == 3 ? String(parts[2]) : nil)
    }

    private static func post(
        _ text: String?, progress: Double?, duration: Double?, actions: [Message.Action], _ arguments: Arguments,
        _ client: OverlayClient
    ) async -> Int32 {
        do {
            // The schedule flags go as the text given: the server reads units, dates and names,
            // and refuses a bad one in its own words, naming the field.
            let message = try await client.post(
                MessageFields(
                    text: text == "-" ? readStandardInput() : text,
                    kind: arguments["--kind"],
                    subtitle: arguments["--subtitle"],
                    icon: arguments["--icon"],
                    progress: progress,
                    duration: duration,
                    immediate: arguments.has("--immediate") ? true : nil,
                    key: arguments["--key"],
                    delay: arguments["--delay"].map(MessageFields.Value.text),
                    at: arguments["--at"].map(MessageFields.Value.text),
                    expires: arguments["--expires"].map(MessageFields.Value.text),
                    priority: arguments["--priority"].map(MessageFields.Value.text),
                    click: arguments["--click"],
                    actions: actions.isEmpty ? nil : actions,
                    accessibilityLabel: arguments["--accessibility-label"]))
            print(message.id)
            return 0
        } catch let error as OverlayClientError {
            switch error {
            case .refused(let refusal):
                let field = refusal.field.map { " (\($0))" } ?? ""
                Output.error("overlayd post: \(refusal.message)\(field) [\(refusal.status) \(refusal.code)]")
                return 2
            case .unreachable(let reason):
                Output.error("overlayd post: \(client.url.absoluteString) cannot be reached: \(reason)")
                return 1
            case .invalidResponse:
                Output.error("overlayd post: \(client.url.absoluteString): \(error)")
                return 1
            }
        } catch {
            Output.error("overlayd post: \(error)")
            return 1
        }
    }

    /// Standard input, whole; the server trims the white space around the text.
    private static func readStandardInput() -> String {
        var bytes: [UInt8] = []
        var buffer = [UInt8](repeating: 0, count: 65536)
        while true {
            let count = buffer.withUnsafeMutableBytes { systemRead(0, $0.baseAddress, $0.count) }
            if count < 0, errno == EINTR { continue }
            guard count > 0 else { break }
            bytes += buffer[..<count]
        }
        return String(decoding: bytes, as: UTF8.self)
    }
}
