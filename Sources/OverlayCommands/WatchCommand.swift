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

/// `overlayd watch`: the overlay drawn live in the terminal.
///
/// It draws from each overlay the server sends, interpolated locally (`Overlay.at`) on the
/// server's clock as this machine's clock advances it. It draws at 30 frames a second only while
/// an animation runs (10 while only the spinner turns) and not at all while nothing moves.
enum WatchCommand {
    static let usage = """
        usage: overlayd watch [options]

        Draws overlayd's status bar live in this terminal: the message in its colours, its
        spinner and progress bar, sliding and fading as the overlay does. Ctrl-C quits and
        gives the screen back. When the server goes away it shows "reconnecting…" and carries
        on once it is back. Without a terminal it prints one line per change.

        options:
          --channel NAME    the channel (default)
          --url URL         the server (http://127.0.0.1:8080)
          --token TOKEN     a read or write token (default: OVERLAYD_TOKEN, else OVERLAYD_READ_TOKEN)
          --help            this text

        Colours are 24-bit when COLORTERM is truecolor or 24bit, else from the 256-colour palette.
        """

    /// What the drawing loop reacts to.
    enum Input: Sendable {
        case event(OverlayEvent)
        case ended((any Error)?)
        case resized
        case interrupted
        case tick
    }

    static let animationInterval = 1.0 / 30
    static let spinnerInterval = 1.0 / 10

    static func run(_ commandLine: [String], environment: [String: String]) async -> Int32 {
        let client: OverlayClient
        do throws(UsageError) {
            let arguments = try Arguments(commandLine, options: ["--channel", "--url", "--token"], switches: [])
            if arguments.has("--help") {
                print(usage)
                return 0
            }
            guard arguments.operands.isEmpty else {
                throw UsageError("watch takes no operand: \(arguments.operands.joined(separator: " "))")
            }
            client = try Commands.client(arguments, environment: environment, readOnly: true)
        } catch {
            Output.error("overlayd watch: \(error)\n\(usage)")
            return 2
        }
        if Terminal.isTerminal {
            return await draw(client, colors: ColorMode(environment: environment))
        }
        return await printLines(client)
    }

    /// The full-screen drawing loop.
    private static func draw(_ client: OverlayClient, colors: ColorMode) async -> Int32 {
        let (inputs, feed) = AsyncStream.makeStream(of: Input.self, bufferingPolicy: .bufferingNewest(256))
        let signals = SignalWatch { feed.yield($0 == SIGWINCH ? .resized : .interrupted) }
        defer { signals.stop() }
        let reader = Task {
            do {
                for try await event in client.events() { feed.yield(.event(event)) }
                feed.yield(.ended(nil))
            } catch {
                feed.yield(.ended(error))
            }
        }
        defer { reader.cancel() }

        let terminal = Terminal()
        terminal.enter()
        var screen = StatusBarScreen()
        screen.channel = client.channel ?? "default"
        screen.server = client.url.absoluteString
        screen.colors = colors
        (screen.columns, screen.rows) = Terminal.size()
        var latest: Overlay?
        var receivedAt = 0.0
        var drawn = ""
        var ticker: (interval: Double, task: Task<Void, Never>)?
        var failure: (any Error)?

        func redraw() {
            let now = monotonicSeconds()
            screen.overlay = latest.map { $0.at($0.now + (now - receivedAt)) }
            screen.spinnerFrame = Int(now / spinnerInterval)
            let frame = screen.render()
            if frame != drawn {
                Output.write(1, frame)
                drawn = frame
            }
            // Frames only while something moves: the animation, or the spinner.
            let serverNow = latest.map { $0.now + (now - receivedAt) } ?? 0
            let interval: Double? =
                latest?.isAnimating(at: serverNow) == true
                ? animationInterval
                : (screen.overlay?.activity == true && (screen.overlay?.alpha ?? 0) > 0 ? spinnerInterval : nil)
            if interval != ticker?.interval {
                ticker?.task.cancel()
                ticker = interval.map { interval in (interval, tick(every: interval, into: feed)) }
            }
        }

        redraw()
        loop: for await input in inputs {
            switch input {
            case .event(.overlay(let overlay)):
                latest = overlay
                receivedAt = monotonicSeconds()
                screen.connection = .connected
            case .event(.disconnected(let error, _)):
                screen.connection = .reconnecting(reason(error))
            case .ended(let error):
                failure = error
                break loop
            case .resized:
                (screen.columns, screen.rows) = Terminal.size()
                drawn = ""
            case .interrupted:
                break loop
            case .tick:
                break
            }
            redraw()
        }
        ticker?.task.cancel()
        terminal.leave()
        if let failure {
            Output.error("overlayd watch: \(failure)")
            if case .refused? = failure as? OverlayClientError { return 2 }
            return 1
        }
        return 0
    }

    /// One line per change, for a standard output that is not a terminal. An ending signal ends
    /// the lines (status 0) as the drawing loop's does: the client's requests are stopped and
    /// their ends awaited before the process exits, not cut off by an exit from the signal's
    /// thread.
    private static func printLines(_ client: OverlayClient) async -> Int32 {
        let lines = Task { await printEvents(client) }
        let signals = SignalWatch { if $0 != SIGWINCH { lines.cancel() } }
        defer { signals.stop() }
        return await lines.value
    }

    private static func printEvents(_ client: OverlayClient) async -> Int32 {
        do {
            for try await event in client.events() {
                switch event {
                case .overlay(let overlay):
                    var line = "v\(overlay.version) \(overlay.phase)"
                    if let message = overlay.message { line += " \(message.kind) #\(message.id) \"\(message.text)\"" }
                    if let actions = overlay.message?.actionLabels { line += " " + actions }
                    if let progress = overlay.progressBar?.progress { line += " \(Int((progress * 100).rounded()))%" }
                    Output.write(1, line + "\n")
                case .disconnected(let error, _):
                    Output.write(1, "reconnecting… (\(reason(error)))\n")
                }
            }
            return 0
        } catch {
            if Task.isCancelled { return 0 }
            Output.error("overlayd watch: \(error)")
            if case .refused? = error as? OverlayClientError { return 2 }
            return 1
        }
    }

    private static func reason(_ error: OverlayClientError) -> String {
        switch error {
        case .unreachable(let reason): reason
        case .refused(let refusal): "\(refusal.status) \(refusal.message)"
        case .invalidResponse(let status, _): "unexpected answer, status \(status)"
        }
    }

    private static func tick(every interval: Double, into feed: AsyncStream<Input>.Continuation) -> Task<Void, Never> {
        Task {
            while !Task.isCancelled {
                try? await Task.sleep(nanoseconds: UInt64(interval * 1e9))
                feed.yield(.tick)
            }
        }
    }

    static func monotonicSeconds() -> Double {
        Double(DispatchTime.now().uptimeNanoseconds) / 1e9
    }
}

/// SIGINT, SIGTERM and SIGHUP end `watch` through its loop (so the terminal is given back and
/// the requests under way end); SIGWINCH redraws at the new size.
final class SignalWatch {
    private static let numbers = [SIGINT, SIGTERM, SIGHUP, SIGWINCH]
    private let sources: [any DispatchSourceSignal]

    /// `received` is called with each signal's number, on a dispatch queue.
    init(_ received: @escaping @Sendable (Int32) -> Void) {
        sources = Self.numbers.map { number in
            // Ignored by the process, so that only the dispatch source sees it.
            signal(number, SIG_IGN)
            let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
            source.setEventHandler { received(number) }
            source.resume()
            return source
        }
    }

    func stop() {
        for source in sources { source.cancel() }
        for number in Self.numbers { signal(number, SIG_DFL) }
    }
}
