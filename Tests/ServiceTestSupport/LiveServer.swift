import OverlayService
import TestSupport

/// A real overlayd in this process on a free loopback port. Start one with `withLiveServer`,
/// which stops it when its body returns: a `deinit` could run at the server's last use, before
/// the test is done with what it started.
public final class LiveServer: Sendable {
    public let server: OverlayServer
    public var port: Int { server.port }

    public init(clock: ClockMode = .manual, configure: (inout ServiceConfiguration) -> Void = { _ in }) throws {
        var configuration = ServiceConfiguration.testing(clock: clock)
        configure(&configuration)
        server = try OverlayServer(configuration: configuration)
    }

    /// A server keeping its state in `directory`, for a restart on it: the durability suites
    /// start one after the other on the same directory.
    public static func durable(
        on directory: TemporaryDirectory, clock: ClockMode = .manual,
        configure: (inout ServiceConfiguration) -> Void = { _ in }
    ) throws -> LiveServer {
        try LiveServer(clock: clock) {
            $0.store(in: directory)
            configure(&$0)
        }
    }

    /// This server once `prepare` has run on it (messages posted, the clock moved), for a suite's
    /// own starting state; stopped if `prepare` throws, since no scope owns it yet.
    public func prepared(_ prepare: (LiveServer) throws -> Void) throws -> LiveServer {
        do {
            try prepare(self)
        } catch {
            stop()
            throw error
        }
        return self
    }

    /// Stops gracefully, as `overlayd` does on SIGTERM; again is harmless.
    public func stop() {
        server.stop(grace: 1)
    }

    public func request(
        _ method: String, _ path: String, headers: [(String, String)] = [], body: String? = nil,
        halfClose: Bool = true
    ) throws -> HTTPReply {
        try RawClient.request(method, path, port: port, headers: headers, body: body, halfClose: halfClose)
    }

    public func get(_ path: String) throws -> HTTPReply { try request("GET", path) }

    /// POSTs JSON.
    public func post(_ path: String, json: String) throws -> HTTPReply {
        try request("POST", path, headers: [("Content-Type", "application/json")], body: json)
    }

    /// Moves the manual clock forward.
    @discardableResult
    public func advance(_ seconds: Double) throws -> HTTPReply {
        try post("/clock", json: "{\"advance\": \(seconds)}")
    }

    public func overlay() throws -> JSONValue { try get("/overlay").json }

    /// Every sample of `GET /metrics`.
    public func metrics(headers: [(String, String)] = []) throws -> MetricSamples {
        try MetricSamples.scrape(port: port, headers: headers)
    }

    /// A gauge or counter of `GET /metrics` for one channel (`overlayd_event_streams`, …).
    public func metric(_ name: String, channel: String = "default") throws -> Int? {
        try metrics().count(name, channel: channel)
    }

    /// Polls `metric` until it equals `value`; false if it does not within `timeout` seconds.
    public func waitForMetric(
        _ name: String, channel: String = "default", toBe value: Int, timeout: Double = patience
    ) throws -> Bool {
        try eventually(within: timeout) { try metric(name, channel: channel) == value }
    }

    /// The overlay's version, as `GET /overlay` on `path` reports it.
    public func version(_ path: String = "/overlay") throws -> Int? {
        try get(path).json["version"]?.int
    }
}

/// Runs `body` with a server started as `LiveServer(clock:configure:)` and stops the server when
/// `body` returns or throws.
public func withLiveServer<Result>(
    clock: ClockMode = .manual, configure: (inout ServiceConfiguration) -> Void = { _ in },
    _ body: (LiveServer) throws -> Result
) throws -> Result {
    try withLiveServer(started: LiveServer(clock: clock, configure: configure), body)
}

/// Runs `body` with the server `started` makes (a suite's own way to configure one) and stops it
/// when `body` returns or throws.
public func withLiveServer<Result>(
    started: @autoclosure () throws -> LiveServer, _ body: (LiveServer) throws -> Result
) throws -> Result {
    let live = try started()
    defer { live.stop() }
    return try body(live)
}

/// Runs `before` on a server that keeps its state in a new directory, stops it, and runs `after`
/// on a server started again on that directory: a restart, as the durability suites check them.
public func withRestart<Result>(
    configure: (inout ServiceConfiguration) -> Void = { _ in }, _ before: (LiveServer) throws -> Void,
    then after: (LiveServer) throws -> Result
) throws -> Result {
    let directory = try TemporaryDirectory()
    try withLiveServer(started: LiveServer.durable(on: directory, configure: configure), before)
    return try withLiveServer(started: LiveServer.durable(on: directory, configure: configure), after)
}
