import OverlayService
import TestSupport

/// A real overlayd on a free loopback port, stopped when the test is done with it.
final class LiveServer: Sendable {
    let server: OverlayServer
    var port: Int { server.port }

    init(clock: ClockMode = .manual, configure: (inout ServiceConfiguration) -> Void = { _ in }) throws {
        var configuration = ServiceConfiguration()
        configuration.port = 0
        configuration.clock = clock
        configuration.accessLog = .off
        configuration.ephemeral = true
        configuration.writesPerSecond = 0
        // Raw-socket tests name the host `x`; the DNS-rebinding check would refuse it.
        configuration.allowedHosts = ["x"]
        configure(&configuration)
        server = try OverlayServer(configuration: configuration)
    }

    deinit {
        server.stop(grace: 1)
    }

    func request(
        _ method: String, _ path: String, headers: [(String, String)] = [], body: String? = nil,
        halfClose: Bool = true
    ) throws -> HTTPReply {
        try RawClient.request(method, path, port: port, headers: headers, body: body, halfClose: halfClose)
    }

    func get(_ path: String) throws -> HTTPReply { try request("GET", path) }

    /// POSTs JSON.
    func post(_ path: String, json: String) throws -> HTTPReply {
        try request("POST", path, headers: [("Content-Type", "application/json")], body: json)
    }

    /// Moves the manual clock forward.
    @discardableResult
    func advance(_ seconds: Double) throws -> HTTPReply {
        try post("/clock", json: "{\"advance\": \(seconds)}")
    }

    func overlay() throws -> JSONValue { try get("/overlay").json }

    /// A gauge or counter of `GET /metrics` for one channel (`overlayd_event_streams`, …).
    func metric(_ name: String, channel: String = "default") throws -> Int? {
        let prefix = "\(name){channel=\"\(channel)\"} "
        for line in try get("/metrics").text.split(separator: "\n") where line.hasPrefix(prefix) {
            return Int(line.dropFirst(prefix.count))
        }
        return nil
    }

    /// Polls `metric` until it equals `value`; false if it does not within `timeout` seconds.
    func waitForMetric(
        _ name: String, channel: String = "default", toBe value: Int, timeout: Double = patience
    ) throws -> Bool {
        try eventually(within: timeout) { try metric(name, channel: channel) == value }
    }

    /// The overlay's version, as `GET /overlay` on `path` reports it.
    func version(_ path: String = "/overlay") throws -> Int? {
        try get(path).json["version"]?.int
    }
}
