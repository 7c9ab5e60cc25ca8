import Dispatch
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

/// The subcommands of the `overlayd` executable besides the server: `post`, `watch` and `token`.
public enum Commands {
    /// What `main` does with the command line.
    public enum Route: Hashable, Sendable {
        /// Run the server with these arguments (the subcommand `serve` removed).
        case serve([String])
        /// A client command ran (or the command line was wrong): exit with this status.
        case exit(Int32)
    }

    /// Runs `post`, `watch` or `token` (blocking until it ends), or says that the server is to run: with no
    /// arguments, with `serve`, or when the first argument is a flag (every server flag starts with
    /// `-`, so `overlayd --port 9000` and the Docker image's entry point keep working).
    public static func route(_ arguments: [String], environment: [String: String]) -> Route {
        guard let first = arguments.first, !first.hasPrefix("-") else { return .serve(arguments) }
        let rest = Array(arguments.dropFirst())
        switch first {
        case "serve":
            return .serve(rest)
        case "post":
            return .exit(blocking { await PostCommand.run(rest, environment: environment) })
        case "watch":
            return .exit(blocking { await WatchCommand.run(rest, environment: environment) })
        case "token":
            return .exit(blocking { await TokenCommand.run(rest, environment: environment) })
        case "help":
            print(usage)
            return .exit(0)
        default:
            Output.error("overlayd: unknown command \"\(first)\" (see overlayd help)")
            return .exit(2)
        }
    }

    /// The commands, for `overlayd help` and after the server's own `--help`.
    public static let usage = """
        usage: overlayd [serve] [server options]   run the server (overlayd serve --help)
               overlayd post TEXT [options]        post a message (overlayd post --help)
               overlayd watch [options]            draw the overlay live in this terminal (overlayd watch --help)
               overlayd token add|list|show|revoke manage access tokens (overlayd token --help)
        """

    /// Runs `body` on the concurrency pool and waits for it: `main` stays synchronous, so the
    /// server's start-up (its signal mask before any thread starts) is exactly what it was.
    static func blocking(_ body: @escaping @Sendable () async -> Int32) -> Int32 {
        let done = DispatchSemaphore(value: 0)
        let status = StatusBox()
        Task {
            status.value = await body()
            done.signal()
        }
        done.wait()
        return status.value
    }

    /// The server's URL and token, from the options shared by `post`, `watch` and `token`.
    static func client(
        _ arguments: Arguments, environment: [String: String], readOnly: Bool
    ) throws(UsageError)
        -> OverlayClient
    {
        let text = arguments["--url"] ?? "http://127.0.0.1:8080"
        guard let url = URL(string: text), let scheme = url.scheme, ["http", "https"].contains(scheme.lowercased()),
            url.host != nil
        else { throw UsageError("--url must be an http:// or https:// URL, not \"\(text)\"") }
        var token = arguments["--token"] ?? environment["OVERLAYD_TOKEN"]
        if readOnly, token == nil { token = environment["OVERLAYD_READ_TOKEN"] }
        // It goes into a header line as it is: a control character would end the line early.
        if let token, token.unicodeScalars.contains(where: { $0.value < 0x20 || $0.value == 0x7F }) {
            throw UsageError("the token must not contain control characters (a line break?)")
        }
        let channel = arguments["--channel"]
        if let channel, channel.isEmpty { throw UsageError("--channel must not be empty") }
        return OverlayClient(url: url, token: token.flatMap { $0.isEmpty ? nil : $0 }, channel: channel) {
            CurlHTTPTransport()
        }
    }
}

/// The exit status a command's task hands back to the waiting main thread (the semaphore orders
/// the write before the read).
private final class StatusBox: @unchecked Sendable {
    var value: Int32 = 0
}

/// Writes to standard output and standard error, whole, without Foundation's buffering.
enum Output {
    static func error(_ line: String) {
        write(2, line + "\n")
    }

    static func write(_ descriptor: Int32, _ text: String) {
        var bytes = Array(text.utf8)
        var offset = 0
        while offset < bytes.count {
            let written = bytes.withUnsafeMutableBytes { buffer in
                systemWrite(descriptor, buffer.baseAddress! + offset, buffer.count - offset)
            }
            if written < 0, errno == EINTR { continue }
            guard written > 0 else { return }
            offset += written
        }
    }
}
