import ServiceTestSupport
import TestSupport
import Testing

@testable import OverlayService

/// `overlayd --healthcheck` (the Docker HEALTHCHECK): the flag, the probe, and the exit codes.
@Suite("Health check")
struct HealthCheckTests {
    /// The flag asks for a probe of the configured server, with every other setting still checked.
    @Test func flag() throws {
        let invocation = try ConfigurationLoader.load(
            arguments: ["--healthcheck", "--port", "9999"], environment: ["OVERLAYD_HOST": "0.0.0.0"])
        guard case .healthcheck(let configuration) = invocation else {
            Issue.record("not a health check: \(invocation)")
            return
        }
        #expect(configuration.port == 9999)
        #expect(configuration.host == "0.0.0.0")
        #expect(throws: ConfigurationError.self) {
            try ConfigurationLoader.load(arguments: ["--healthcheck", "--port", "x"], environment: [:])
        }
    }

    /// The probe says yes to a running server (also through a wildcard or localhost host) and no to a
    /// port nobody listens on any more.
    @Test func probe() throws {
        try withLiveServer { live in
            #expect(HealthProbe.isHealthy(host: "127.0.0.1", port: live.port))
            #expect(HealthProbe.isHealthy(host: "0.0.0.0", port: live.port))
            #expect(HealthProbe.isHealthy(host: "localhost", port: live.port))
            let port = live.port
            live.server.stop(grace: 0)
            #expect(!HealthProbe.isHealthy(host: "127.0.0.1", port: port, timeoutSeconds: 1))
            #expect(!HealthProbe.isHealthy(host: "not an address", port: port))
        }
    }

    /// The process exits 0 when the server answers and 1 when nothing does.
    @Test func processExitCodes() throws {
        try withLiveServer { live in
            let healthy = try ChildProcess.overlayd(["--healthcheck", "--port", String(live.port)])
            #expect(healthy.exitStatus() == 0)
            let port = live.port
            live.server.stop(grace: 0)
            let unhealthy = try ChildProcess.overlayd(["--healthcheck", "--port", String(port)])
            #expect(unhealthy.exitStatus() == 1)
        }
    }
}
